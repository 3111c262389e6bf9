import { CatalogPatterns, HealthPatterns } from '@petstore/contracts';
import { FakeService } from '../testing/fake-service';
import { expectError, startGateway, type GatewayUnderTest } from '../testing/gateway-under-test';
import { Redis } from 'ioredis';
import { readFileSync } from 'node:fs';
import { RATE_LIMIT_KEY_PREFIX, SharedRateLimiter } from './rate-limiter';

// Against the suites' real Redis (tools/stack/src/redis.ts, started by Jest's global setup): TLS, no
// default user, and the gateways' ACL user, as RATE_LIMIT_REDIS_URL names it in the stacks.
const REDIS_URL = process.env['TEST_REDIS_URL'] as string;
const REDIS_PASSWORD = readFileSync(process.env['TEST_REDIS_PASSWORD_FILE'] as string, 'utf8').trim();
const REDIS_CA_FILE = process.env['TEST_REDIS_CA_FILE'] as string;
const redisConnection = { rateLimitRedisUrl: REDIS_URL, rateLimitRedisPassword: REDIS_PASSWORD, rateLimitRedisCaFile: REDIS_CA_FILE };
const KEY = 'shop-key-0001';
const auth = { authorization: `Bearer ${KEY}` };
const catalog = new FakeService([...Object.values(CatalogPatterns), HealthPatterns.check]);

describe('a rate limit shared in Redis', () => {
  const gateways: GatewayUnderTest[] = [];

  beforeAll(async () => {
    await catalog.start();
    catalog.on(CatalogPatterns.getCategory, () => ({ id: 1, name: 'Dogs' }));
    // Two gateways of one stack: the same subject prefix, so the same keys in Redis.
    for (let i = 0; i < 2; i += 1) {
      gateways.push(
        await startGateway({ catalog, orders: catalog, inventory: catalog }, {
          apiKeys: [{ name: 'shop', key: KEY, scopes: ['*'] }],
          rateLimitPerSecond: 5,
          ...redisConnection,
          // The test is about sharing: a busy machine must not push a count past the budget
          // and into the gateway's own count (the unreachable case below tests that fallback).
          rateLimitRedisTimeoutMs: 2000,
        }),
      );
    }
    // Until its Redis connection is up (a few milliseconds here) a gateway counts by itself, by design.
    await new Promise((resolve) => setTimeout(resolve, 500));
  });

  afterAll(async () => {
    for (const gateway of gateways) await gateway.close();
    await catalog.stop();
  });

  it('holds the quota across two gateways, not per gateway', async () => {
    // Within one window (a second): ten requests, alternating between the gateways.
    const responses = await Promise.all(Array.from({ length: 10 }, (_, i) => gateways[i % 2].call('GET', '/v1/categories/1', { headers: auth })));
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429, 429, 429, 429]);
    const refused = responses.find((response) => response.status === 429);
    expectError(refused as NonNullable<typeof refused>, 429, 'RATE_LIMITED');
    expect(refused?.headers['ratelimit-policy']).toBe('"default";q=5;w=1');
    expect(refused?.headers['retry-after']).toBe('1');
  });
});

describe('a rate limit whose Redis cannot be reached', () => {
  it('counts in the process instead, at once, with the same quota', async () => {
    const limiter = new SharedRateLimiter(2, 'redis://127.0.0.1:1', 'petstore:rate:unreachable.', 50);
    try {
      const started = Date.now();
      const decisions = [await limiter.take('shop'), await limiter.take('shop'), await limiter.take('shop')];
      expect(decisions.map((decision) => decision.allowed)).toEqual([true, true, false]);
      expect(decisions[2]).toEqual({ allowed: false, remaining: 0, resetSeconds: 1 });
      expect(Date.now() - started).toBeLessThan(1000);
    } finally {
      await limiter.close();
    }
  });
});

describe("the gateways' Redis user", () => {
  const { port } = new URL(REDIS_URL);
  const tls = { ca: readFileSync(REDIS_CA_FILE) };
  const clients: Redis[] = [];
  const connectAs = (options: { username?: string; password?: string }) => {
    const client = new Redis({ host: '127.0.0.1', port: Number(port), tls, enableReadyCheck: false, maxRetriesPerRequest: 0, retryStrategy: () => null, lazyConnect: true, ...options });
    clients.push(client);
    return client;
  };
  const refusal = (command: Promise<unknown>) => command.then((answer) => `answered ${JSON.stringify(answer)}`, (error: Error) => error.message.split(' ')[0]);

  afterAll(() => {
    for (const client of clients) client.disconnect();
  });

  it('counts in its own keys, and may read, write or list no other key, nor run other commands', async () => {
    const gateway = connectAs({ username: 'ratelimit', password: REDIS_PASSWORD });
    gateway.on('error', () => undefined);
    await gateway.connect();
    const own = `${RATE_LIMIT_KEY_PREFIX}acl-test.shop`;
    // What rate-limiter-flexible runs (its script), on its own key: allowed.
    await expect(gateway.eval("redis.call('set', KEYS[1], 0, 'EX', 1, 'NX') return redis.call('incrby', KEYS[1], 1)", 1, own)).resolves.toBe(1);
    expect(await refusal(gateway.set('petstore:other', '1'))).toBe('NOPERM');
    expect(await refusal(gateway.eval("return redis.call('set', KEYS[1], 1)", 1, 'petstore:other'))).toMatch(/NOPERM|ERR/);
    expect(await refusal(gateway.get(own))).toBe('NOPERM');
    expect(await refusal(gateway.keys('*'))).toBe('NOPERM');
    expect(await refusal(gateway.flushall())).toBe('NOPERM');
    expect(await refusal(gateway.config('GET', '*'))).toBe('NOPERM');
    expect(await refusal(gateway.acl('LIST'))).toBe('NOPERM');
  });

  it('refuses a connection without credentials, or with a wrong password', async () => {
    /** What the server answered the connection's first command (ioredis's HELLO, with AUTH when it has credentials). */
    const firstAnswer = async (options: { username?: string; password?: string }) => {
      const client = connectAs(options);
      const answer = new Promise<string>((resolve) => client.once('error', (error: Error) => resolve(error.message.split(' ')[0])));
      await client.connect().catch(() => undefined);
      return answer;
    };
    expect(await firstAnswer({})).toBe('NOAUTH');
    expect(await firstAnswer({ username: 'ratelimit', password: `${REDIS_PASSWORD}-wrong` })).toBe('WRONGPASS');
    expect(await firstAnswer({ username: 'default', password: 'anything' })).toBe('WRONGPASS');
  });
});
