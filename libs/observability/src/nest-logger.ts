import { Logger as NestLogger, type LoggerService } from '@nestjs/common';
import { logLevelsFrom, type LogLevel } from '@petstore/config';
import type { Level, Logger } from 'pino';
import { PINO_LEVELS, processLogger } from './logger';

/**
 * Every Nest logger of the process (Nest's own, `new Logger(context)` anywhere) writes through
 * the process's logger from now on, which writes from `level` up (as Nest's levels are global,
 * so is this); `Logger.isLevelEnabled` answers for `level`. Returns the adapter for
 * `NestFactory.create(…, { logger })`.
 */
export function useNestLogger(level: LogLevel): NestPinoLogger {
  const logger = processLogger();
  logger.level = PINO_LEVELS[level];
  const adapter = new NestPinoLogger(logger);
  NestLogger.overrideLogger(logLevelsFrom(level));
  NestLogger.overrideLogger(adapter);
  return adapter;
}

/**
 * Nest's logger interface over pino, so Nest's own lines and every `new Logger(context)` of the
 * code become JSON lines of the process's logger. Nest passes the context as the last argument,
 * and for errors the stack before it.
 */
export class NestPinoLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  log(message: unknown, ...params: unknown[]): void {
    this.write('info', message, params);
  }

  error(message: unknown, ...params: unknown[]): void {
    this.write('error', message, params);
  }

  warn(message: unknown, ...params: unknown[]): void {
    this.write('warn', message, params);
  }

  debug(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, params);
  }

  verbose(message: unknown, ...params: unknown[]): void {
    this.write('trace', message, params);
  }

  fatal(message: unknown, ...params: unknown[]): void {
    this.write('fatal', message, params);
  }

  private write(level: Level, message: unknown, params: unknown[]): void {
    if (!this.logger.isLevelEnabled(level)) return;
    const rest = [...params];
    // error(message, stack) from Nest's static Logger has no context; error(message, stack, context) has.
    const hasContext = typeof rest.at(-1) === 'string' && (level !== 'error' || rest.length >= 2);
    const context = hasContext ? (rest.pop() as string) : undefined;
    const stack = level === 'error' && typeof rest[0] === 'string' ? rest[0] : undefined;
    const fields: Record<string, unknown> = { ...(context && { context }), ...(stack && { stack }) };
    if (message instanceof Error) {
      this.logger[level]({ ...fields, err: message }, message.message);
    } else if (typeof message === 'object' && message !== null) {
      this.logger[level]({ ...fields, ...message });
    } else {
      this.logger[level](fields, String(message));
    }
  }
}
