import { oneOf, type Reader } from './config';

/** The settings every process of the stack reads the same way. */
export const NODE_ENVS = ['development', 'production', 'test'] as const;
export type NodeEnv = (typeof NODE_ENVS)[number];

export const nodeEnv: Reader<NodeEnv> = oneOf('NODE_ENV', NODE_ENVS, 'development');

/** Nest's levels: each one prints itself and those before it. */
export const LOG_LEVELS = ['error', 'warn', 'log', 'debug', 'verbose'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const logLevel: Reader<LogLevel> = oneOf('LOG_LEVEL', LOG_LEVELS, 'log');

/** Nest's logger takes the levels to print, not a threshold. */
export function logLevelsFrom(level: LogLevel): LogLevel[] {
  return LOG_LEVELS.slice(0, LOG_LEVELS.indexOf(level) + 1);
}
