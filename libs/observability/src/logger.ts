import { isSpanContextValid, trace } from '@opentelemetry/api';
import type { LogLevel } from '@petstore/config';
import { pino, stdTimeFunctions, type DestinationStream, type Level, type Logger } from 'pino';
import { currentLogContext } from './log-context';

/** `LOG_LEVEL` keeps Nest's names (libs/config); pino calls `log` info and `verbose` trace. */
export const PINO_LEVELS: Readonly<Record<LogLevel, Level>> = {
  error: 'error',
  warn: 'warn',
  log: 'info',
  debug: 'debug',
  verbose: 'trace',
};

export interface LoggerOptions {
  /** Written on every line: which process of the stack wrote it. */
  service: string;
  level?: LogLevel;
  /** Standard output when not given; tests pass a stream to read the lines back. */
  destination?: DestinationStream;
}

/**
 * What the code running now adds to a line: the request or event it works for (bound once with
 * `withLogContext`) and the active span, whether or not a tracing SDK is registered.
 */
export function contextFields(): Record<string, string | number> {
  const fields: Record<string, string | number> = {};
  for (const [name, value] of Object.entries(currentLogContext() ?? {})) if (value !== undefined) fields[name] = value;
  const span = trace.getActiveSpan()?.spanContext();
  if (span && isSpanContextValid(span)) {
    fields['traceId'] = span.traceId;
    fields['spanId'] = span.spanId;
  }
  return fields;
}

/**
 * One JSON object per line, never colour codes: a terminal gets its readable form from a
 * formatter reading the lines (scripts/start.mjs), so what a process writes is the same
 * everywhere and a log collector can parse it.
 */
export function createLogger({ service, level = 'log', destination }: LoggerOptions): Logger {
  const options = {
    base: { service, pid: process.pid },
    level: PINO_LEVELS[level],
    timestamp: stdTimeFunctions.isoTime,
    formatters: { level: (label: string) => ({ level: label }) },
    mixin: contextFields,
  };
  // Node's own stdout rather than a second writer on fd 1: the few lines a process writes
  // itself (`migrate`'s summary) and the log lines go through one stream, in order.
  return pino(options, destination ?? process.stdout);
}

let current: Logger | undefined;

/** Makes this process's logger: call once, first thing in a main, before anything logs. */
export function useProcessLogger(options: LoggerOptions): Logger {
  current = createLogger(options);
  return current;
}

/**
 * The process's one logger. Code that runs without a main (a test module, a library used alone)
 * gets one named after nothing in particular, at the level `LOG_LEVEL` asks for.
 */
export function processLogger(): Logger {
  current ??= createLogger({ service: 'petstore', level: levelFromEnv() });
  return current;
}

function levelFromEnv(): LogLevel {
  const level = process.env['LOG_LEVEL'];
  return level !== undefined && level in PINO_LEVELS ? (level as LogLevel) : 'log';
}
