import { ConfigError, hostPort, instant, int, logLevel, nodeEnv, optionalStr, port, refuseUnsecuredBus, secretFile, str, type Env } from '@petstore/config';
import { rpcTransportConfigShape } from '@petstore/rpc';
import { apiKeys } from './auth/api-keys';

/**
 * RATE_LIMIT_REDIS_URL: TLS and an ACL user with a password, always; a plain or anonymous Redis only
 * in the benchmark of what they cost. The URL is never quoted: it may hold the password.
 */
function rateLimitRedisUrl(env: Env): string | undefined {
  const variable = 'RATE_LIMIT_REDIS_URL';
  const value = optionalStr(variable)(env);
  if (value === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(variable, 'must be a URL such as rediss://user@host:6379');
  }
  if (url.protocol !== 'rediss:') refuseUnsecuredBus(env, variable, `must be rediss:// (TLS), not ${url.protocol}//`);
  if (!url.username) refuseUnsecuredBus(env, variable, 'must name the ACL user (rediss://user@host:port)');
  if (!url.password && !env['RATE_LIMIT_REDIS_PASSWORD_FILE']?.trim()) refuseUnsecuredBus(env, 'RATE_LIMIT_REDIS_PASSWORD_FILE', `is required with ${variable}`);
  return value;
}

export const gatewayConfigShape = {
  nodeEnv,
  host: str('HOST', '0.0.0.0'),
  httpPort: port('HTTP_PORT', 3000),
  /** `GET /metrics` listens here, never on the public port. */
  metricsPort: port('METRICS_PORT', 9464),
  /** RPC_TRANSPORT, NATS_SERVERS, NATS_SUBJECT_PREFIX: how the services are reached. */
  ...rpcTransportConfigShape,
  /** The services' addresses with RPC_TRANSPORT=tcp. */
  catalogRpc: hostPort('CATALOG_RPC', '127.0.0.1:4001'),
  ordersRpc: hostPort('ORDERS_RPC', '127.0.0.1:4002'),
  inventoryRpc: hostPort('INVENTORY_RPC', '127.0.0.1:4003'),
  apiKeys,
  /** Requests per second per API key; 0 switches rate limiting (and its headers) off. */
  rateLimitPerSecond: int('RATE_LIMIT_PER_SECOND', 1000, { min: 0, max: 1_000_000 }),
  /**
   * Where every gateway counts the rate limit (`rediss://user@host:port`: TLS and an ACL user);
   * unset: each gateway counts on its own.
   */
  rateLimitRedisUrl: rateLimitRedisUrl,
  /** The password of the URL's Redis ACL user, from a file. */
  rateLimitRedisPassword: secretFile('RATE_LIMIT_REDIS_PASSWORD_FILE'),
  /** The CA that signed a `rediss://` server's certificate (else the system's CAs). */
  rateLimitRedisCaFile: optionalStr('RATE_LIMIT_REDIS_TLS_CA_FILE'),
  /** How long a request waits for Redis to count it before this gateway counts it instead. */
  rateLimitRedisTimeoutMs: int('RATE_LIMIT_REDIS_TIMEOUT_MS', 50, { min: 1, max: 10_000 }),
  upstreamTimeoutMs: int('UPSTREAM_TIMEOUT_MS', 5000, { min: 1, max: 600_000 }),
  /** How long `GET /v2/pets/{petId}` waits for the inventory part before answering `inventory: null`. */
  inventoryDetailsTimeoutMs: int('INVENTORY_DETAILS_TIMEOUT_MS', 500, { min: 1, max: 600_000 }),
  /** After this instant `GET /v1/pets/{petId}` answers 410. */
  petsV1Sunset: instant('PETS_V1_SUNSET', '2027-06-30T23:59:59Z'),
  logLevel,
};

export type GatewayConfig = { [K in keyof typeof gatewayConfigShape]: ReturnType<(typeof gatewayConfigShape)[K]> };
