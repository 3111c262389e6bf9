import { list, logLevel, nodeEnv, port, postgresUrl, str, type ConfigShape, type LogLevel, type NodeEnv } from '@petstore/config';

export interface ServiceConfig {
  nodeEnv: NodeEnv;
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
    nodeEnv,
    logLevel,
    httpPort: port('HTTP_PORT', defaults.httpPort),
    host: str('HOST', '127.0.0.1'),
    rpcPort: port('RPC_PORT', defaults.rpcPort),
    databaseUrl: postgresUrl('DATABASE_URL', `postgres://postgres@127.0.0.1:5432/${defaults.database}`),
    kafkaBrokers: list('KAFKA_BROKERS', '127.0.0.1:9092'),
    kafkaNamespace: (env) => env['KAFKA_NAMESPACE']?.trim() ?? '',
  };
}
