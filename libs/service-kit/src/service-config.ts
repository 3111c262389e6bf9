import {
  secretFile,
  int,
  list,
  logLevel,
  nodeEnv,
  port,
  postgresUrl,
  str,
  type ConfigShape,
  type Env,
  type LogLevel,
  type NodeEnv,
  type Reader,
} from '@petstore/config';
import { DEFAULT_POOL_MAX } from '@petstore/database';
import { kafkaSecurityFromEnv } from '@petstore/kafka';
import { rpcTransportConfigShape, type RpcTransportConfig } from '@petstore/rpc';

export interface ServiceConfig extends RpcTransportConfig {
  nodeEnv: NodeEnv;
  logLevel: LogLevel;
  httpPort: number;
  /** Interface both servers bind to: 127.0.0.1 on a developer machine, 0.0.0.0 in a container. */
  host: string;
  /** The TCP transport's port (RPC_TRANSPORT=tcp). */
  rpcPort: number;
  /** Where the service serves from, as its own least-privileged role (DATABASE_PASSWORD_FILE already applied). */
  databaseUrl: string;
  /** The owner's URL for `main.js migrate` (MIGRATION_DATABASE_URL); when unset, migrate uses databaseUrl and grants nothing. */
  migrationDatabaseUrl?: string;
  /**
   * The most connections the service's pool opens (DATABASE_POOL_MAX); the relay's session and
   * orders' LISTEN add one each. Lower it when many replicas share one PostgreSQL (docs/SCALING.md).
   */
  databasePoolMax: number;
  kafkaBrokers: string[];
  /** Prefix of every topic and consumer group: lets test runs share one broker without seeing each other. */
  kafkaNamespace: string;
  /**
   * Who the service is to Kafka (KAFKA_SASL_USERNAME). Its password and CA files are read and
   * checked at start-up with the rest; every Kafka client of the process reads them again from
   * there, so the secret itself never sits in this object, which may be logged.
   */
  kafkaPrincipal?: string;
  /** After SIGTERM, how long the service still serves while readiness already says no (load balancers notice). */
  shutdownDelayMs: number;
  /** Then, how long requests already taken may take to finish before the service stops anyway. */
  drainTimeoutMs: number;
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
    databaseUrl: withPasswordFile(postgresUrl('DATABASE_URL', `postgres://postgres@127.0.0.1:5432/${defaults.database}`)),
    migrationDatabaseUrl: (env) => (env['MIGRATION_DATABASE_URL']?.trim() ? postgresUrl('MIGRATION_DATABASE_URL', '')(env) : undefined),
    kafkaBrokers: list('KAFKA_BROKERS', '127.0.0.1:9092'),
    kafkaNamespace: (env) => env['KAFKA_NAMESPACE']?.trim() ?? '',
    kafkaPrincipal: (env) => kafkaSecurityFromEnv(env).sasl?.username,
    ...rpcTransportConfigShape,
    databasePoolMax: int('DATABASE_POOL_MAX', DEFAULT_POOL_MAX, { min: 1, max: 1000 }),
    shutdownDelayMs: int('SHUTDOWN_DELAY_MS', 0, { min: 0, max: 600_000 }),
    drainTimeoutMs: int('DRAIN_TIMEOUT_MS', 10_000, { min: 0, max: 600_000 }),
  };
}

/**
 * DATABASE_PASSWORD_FILE, when set, holds the password of DATABASE_URL's role (a secret kept
 * out of the environment; in compose the migrate step generates it, see docs/OPERATIONS.md).
 */
export const DATABASE_PASSWORD_FILE = 'DATABASE_PASSWORD_FILE';

function withPasswordFile(url: Reader<string>): Reader<string> {
  return (env: Env) => {
    const password = secretFile(DATABASE_PASSWORD_FILE)(env);
    if (password === undefined) return url(env);
    const withPassword = new URL(url(env));
    withPassword.password = encodeURIComponent(password);
    return withPassword.toString();
  };
}
