import { list, oneOf, port, postgresUrl, str, type ConfigShape } from '@petstore/config';

export const LOG_LEVELS = ['error', 'warn', 'log', 'debug', 'verbose'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface ServiceConfig {
  nodeEnv: 'development' | 'production' | 'test';
  logLevel: LogLevel;
  httpPort: number;
  /** Interface both servers bind to: 127.0.0.1 on a developer machine, 0.0.0.0 in a container. */
  host: string;
  rpcPort: number;
  databaseUrl: string;
  kafkaBrokers: string[];
  /** Prefix of every topic and consumer group: lets test runs share one broker without seeing each other. */
  kafkaNamespace: string;
}

export interface ServiceDefaults {
  httpPort: number;
  rpcPort: number;
  database: string;
}

export function serviceConfigShape(defaults: ServiceDefaults): ConfigShape<ServiceConfig> {
  return {
    nodeEnv: oneOf('NODE_ENV', ['development', 'production', 'test'], 'development'),
    logLevel: oneOf('LOG_LEVEL', LOG_LEVELS, 'log'),
    httpPort: port('HTTP_PORT', defaults.httpPort),
    host: str('HOST', '127.0.0.1'),
    rpcPort: port('RPC_PORT', defaults.rpcPort),
    databaseUrl: postgresUrl('DATABASE_URL', `postgres://postgres@127.0.0.1:5432/${defaults.database}`),
    kafkaBrokers: list('KAFKA_BROKERS', '127.0.0.1:9092'),
    kafkaNamespace: (env) => env['KAFKA_NAMESPACE']?.trim() ?? '',
  };
}

/** Nest's logger takes the levels to print, not a threshold. */
export function logLevelsFrom(level: LogLevel): LogLevel[] {
  return LOG_LEVELS.slice(0, LOG_LEVELS.indexOf(level) + 1);
}
