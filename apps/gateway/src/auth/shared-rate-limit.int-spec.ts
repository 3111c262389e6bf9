import { CatalogPatterns, HealthPatterns } from '@petstore/contracts';
import { FakeService } from '../testing/fake-service';
import { expectError, startGateway, type GatewayUnderTest } from '../testing/gateway-under-test';
import { SharedRateLimiter } from './rate-limiter';

// Against the real Redis (127.0.0.1:6379, as RATE_LIMIT_REDIS_URL names it in the stacks).
const REDIS_URL = process.env['TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379';
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
          rateLimitRedisUrl: REDIS_URL,
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
