import {
  ConfigError,
  hostPort,
  instant,
  int,
  logLevel,
  nodeEnv,
  port,
  str,
  type Env,
  type Reader,
} from '@petstore/config';
import { DEV_API_KEY, parseApiKeys, type ApiKeyConfig } from './auth/api-keys';

/**
 * `API_KEYS`: a JSON array of `{ name, key | sha256, scopes }`. Outside production an unset
 * variable means the documented development key; production refuses to start without keys
 * and refuses that key.
 */
export const apiKeys: Reader<ApiKeyConfig[]> = (env: Env) => {
  const production = nodeEnv(env) === 'production';
  const text = env['API_KEYS']?.trim();
  if (!text && production) throw new ConfigError('API_KEYS', 'is required in production (a JSON array of { name, key | sha256, scopes })');
  const keys = text ? parseApiKeys(text) : [DEV_API_KEY];
  if (production && keys.length === 0) throw new ConfigError('API_KEYS', 'must list at least one key in production');
  if (production && keys.some((key) => key.key === DEV_API_KEY.key)) throw new ConfigError('API_KEYS', 'must not contain the development key in production');
  return keys;
};

export const gatewayConfigShape = {
  nodeEnv,
  host: str('HOST', '0.0.0.0'),
  httpPort: port('HTTP_PORT', 3000),
  /** `GET /metrics` listens here, never on the public port. */
  metricsPort: port('METRICS_PORT', 9464),
  catalogRpc: hostPort('CATALOG_RPC', '127.0.0.1:4001'),
  ordersRpc: hostPort('ORDERS_RPC', '127.0.0.1:4002'),
  inventoryRpc: hostPort('INVENTORY_RPC', '127.0.0.1:4003'),
  apiKeys,
  /** Requests per second per API key; 0 switches rate limiting (and its headers) off. */
  rateLimitPerSecond: int('RATE_LIMIT_PER_SECOND', 1000, { min: 0, max: 1_000_000 }),
  upstreamTimeoutMs: int('UPSTREAM_TIMEOUT_MS', 5000, { min: 1, max: 600_000 }),
  /** How long `GET /v2/pets/{petId}` waits for the inventory part before answering `inventory: null`. */
  inventoryDetailsTimeoutMs: int('INVENTORY_DETAILS_TIMEOUT_MS', 500, { min: 1, max: 600_000 }),
  /** After this instant `GET /v1/pets/{petId}` answers 410. */
  petsV1Sunset: instant('PETS_V1_SUNSET', '2027-06-30T23:59:59Z'),
  logLevel,
};

export type GatewayConfig = { [K in keyof typeof gatewayConfigShape]: ReturnType<(typeof gatewayConfigShape)[K]> };
