import { ConfigError, readConfig } from '@petstore/config';
import { logLevelsFrom } from '@petstore/config';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gatewayConfigShape } from './config';

describe('gateway configuration', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-config-'));
  const natsCredentials = { NATS_USER: 'gateway', NATS_PASSWORD_FILE: join(dir, 'gateway.password'), NATS_TLS_CA_FILE: join(dir, 'ca.pem') };
  writeFileSync(natsCredentials.NATS_PASSWORD_FILE, 's3cret', { mode: 0o600 });
  writeFileSync(natsCredentials.NATS_TLS_CA_FILE, '-----BEGIN CERTIFICATE-----\n');

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('has defaults for a development machine, with the documented key', () => {
    const config = readConfig(gatewayConfigShape, natsCredentials);
    expect(config).toEqual({
      nodeEnv: 'development',
      host: '0.0.0.0',
      httpPort: 3000,
      metricsPort: 9464,
      rpcTransport: 'nats',
      natsServers: ['nats://127.0.0.1:4322'],
      natsSubjectPrefix: '',
      nats: { user: 'gateway', password: 's3cret', caFile: natsCredentials.NATS_TLS_CA_FILE },
      catalogRpc: { host: '127.0.0.1', port: 4001 },
      ordersRpc: { host: '127.0.0.1', port: 4002 },
      inventoryRpc: { host: '127.0.0.1', port: 4003 },
      apiKeys: [{ name: 'dev', key: 'dev-key-0123456789', scopes: ['*'] }],
      rateLimitPerSecond: 1000,
      rateLimitRedisTimeoutMs: 50,
      upstreamTimeoutMs: 5000,
      inventoryDetailsTimeoutMs: 500,
      petsV1Sunset: new Date('2027-06-30T23:59:59Z'),
      logLevel: 'log',
    });
  });

  it('reads every variable', () => {
    const config = readConfig(gatewayConfigShape, {
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      HTTP_PORT: '8080',
      METRICS_PORT: '9100',
      RPC_TRANSPORT: 'tcp',
      RPC_TCP_BENCH_ONLY: 'true',
      NATS_SERVERS: 'nats://nats-1:4222, nats://nats-2:4222',
      NATS_SUBJECT_PREFIX: 'blue.',
      CATALOG_RPC: 'catalog:5001',
      ORDERS_RPC: 'orders:5002',
      INVENTORY_RPC: 'inventory:5003',
      API_KEYS: '[{"name":"shop","key":"s3cret-key","scopes":["catalog:read"]}]',
      RATE_LIMIT_PER_SECOND: '0',
      RATE_LIMIT_REDIS_URL: 'rediss://ratelimit@redis:6379',
      RATE_LIMIT_REDIS_PASSWORD_FILE: natsCredentials.NATS_PASSWORD_FILE,
      RATE_LIMIT_REDIS_TIMEOUT_MS: '20',
      UPSTREAM_TIMEOUT_MS: '2000',
      INVENTORY_DETAILS_TIMEOUT_MS: '100',
      PETS_V1_SUNSET: '2026-01-01T00:00:00Z',
      LOG_LEVEL: 'warn',
    });
    expect(config).toMatchObject({
      nodeEnv: 'production',
      host: '127.0.0.1',
      httpPort: 8080,
      metricsPort: 9100,
      rpcTransport: 'tcp',
      natsServers: ['nats://nats-1:4222', 'nats://nats-2:4222'],
      natsSubjectPrefix: 'blue.',
      catalogRpc: { host: 'catalog', port: 5001 },
      apiKeys: [{ name: 'shop', key: 's3cret-key', scopes: ['catalog:read'] }],
      rateLimitPerSecond: 0,
      rateLimitRedisUrl: 'rediss://ratelimit@redis:6379',
      rateLimitRedisPassword: 's3cret',
      rateLimitRedisTimeoutMs: 20,
      upstreamTimeoutMs: 2000,
      inventoryDetailsTimeoutMs: 100,
      petsV1Sunset: new Date('2026-01-01T00:00:00Z'),
      logLevel: 'warn',
    });
  });

  it('refuses to start in production without keys, naming the variable', () => {
    expect(() => readConfig(gatewayConfigShape, { ...natsCredentials, NODE_ENV: 'production' })).toThrow(
      new ConfigError('API_KEYS', 'is required in production (a JSON array of { name, key | sha256, scopes })'),
    );
    expect(() => readConfig(gatewayConfigShape, { ...natsCredentials, NODE_ENV: 'production', API_KEYS: '[]' })).toThrow(/API_KEYS must list/);
  });

  it('refuses the development key in production', () => {
    const API_KEYS = '[{"name":"x","key":"dev-key-0123456789","scopes":["*"]}]';
    expect(() => readConfig(gatewayConfigShape, { ...natsCredentials, NODE_ENV: 'production', API_KEYS })).toThrow(/development key/);
    expect(readConfig(gatewayConfigShape, { ...natsCredentials, NODE_ENV: 'test', API_KEYS }).apiKeys).toHaveLength(1);
  });

  it.each([
    ['API_KEYS', '[{"name":"a"}]', /Invalid configuration: API_KEYS entry 0/],
    ['CATALOG_RPC', 'nohost', /CATALOG_RPC must be host:port/],
    ['RATE_LIMIT_PER_SECOND', '-1', /RATE_LIMIT_PER_SECOND/],
    ['PETS_V1_SUNSET', 'tomorrow', /PETS_V1_SUNSET/],
    ['NODE_ENV', 'staging', /NODE_ENV must be one of/],
    ['LOG_LEVEL', 'loud', /LOG_LEVEL/],
  ])('names %s when its value is bad', (name, value, message) => {
    expect(() => readConfig(gatewayConfigShape, { ...natsCredentials, [name]: value })).toThrow(message);
  });

  it('refuses a Redis without TLS, an ACL user or its password unless the benchmark of their cost says so', () => {
    const redis = { ...natsCredentials, RATE_LIMIT_REDIS_URL: 'rediss://ratelimit@redis:6379', RATE_LIMIT_REDIS_PASSWORD_FILE: natsCredentials.NATS_PASSWORD_FILE };
    expect(readConfig(gatewayConfigShape, redis).rateLimitRedisUrl).toBe('rediss://ratelimit@redis:6379');
    expect(() => readConfig(gatewayConfigShape, { ...redis, RATE_LIMIT_REDIS_URL: 'redis://ratelimit@redis:6379' })).toThrow(
      /^Invalid configuration: RATE_LIMIT_REDIS_URL must be rediss:\/\/ \(TLS\), not redis:\/\/: .*BUS_SECURITY_OFF_BENCH_ONLY=true/,
    );
    expect(() => readConfig(gatewayConfigShape, { ...redis, RATE_LIMIT_REDIS_URL: 'rediss://redis:6379' })).toThrow(/RATE_LIMIT_REDIS_URL must name the ACL user/);
    expect(() => readConfig(gatewayConfigShape, { ...redis, RATE_LIMIT_REDIS_PASSWORD_FILE: '' })).toThrow(/RATE_LIMIT_REDIS_PASSWORD_FILE is required with RATE_LIMIT_REDIS_URL/);
    expect(() => readConfig(gatewayConfigShape, { ...redis, RATE_LIMIT_REDIS_URL: 'rediss://u:p4ssw0rd@re dis' })).not.toThrow(/p4ssw0rd/);
    const plain = { BUS_SECURITY_OFF_BENCH_ONLY: 'true', RATE_LIMIT_REDIS_URL: 'redis://127.0.0.1:26381' };
    expect(readConfig(gatewayConfigShape, plain)).toMatchObject({ rateLimitRedisUrl: 'redis://127.0.0.1:26381', nats: 'unsecured' });
  });

  it('turns a level into the levels Nest prints', () => {
    expect(logLevelsFrom('warn')).toEqual(['error', 'warn']);
    expect(logLevelsFrom('verbose')).toHaveLength(5);
  });
});
