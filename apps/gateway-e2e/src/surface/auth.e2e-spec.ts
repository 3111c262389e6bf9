import { createHash } from 'node:crypto';
import type { Attempt } from '@petstore/client';
import { api, eventually } from '../support/stack';
import { petstore } from '../support/client';
import { bearer, createPet, expectError, HASHED_KEY, READER_KEY, uniqueName } from '../support/fixtures';

// The e2e stack runs with RATE_LIMIT_PER_SECOND=0 (rate limiting off, and with it the
// RateLimit-Policy / RateLimit headers), so that suites never throttle each other: 429
// RATE_LIMITED with Retry-After and the headers on every authenticated response are covered by
// the gateway's in-process tests (apps/gateway/src/gateway.spec.ts, "rate limiting"). Likewise
// 410 ENDPOINT_SUNSET needs a sunset in the past (PETS_V1_SUNSET) and is covered there.

const reader = bearer(READER_KEY);
const hashed = bearer(HASHED_KEY);

describe('scopes', () => {
  it('lets a catalog:read key read the catalog', async () => {
    const pet = await createPet();
    const requests = ['/v1/pets?limit=1', `/v1/pets/${pet.id}`, `/v2/pets/${pet.id}`, '/v1/categories?limit=1', `/v1/categories/${pet.categoryId}`];
    for (const path of requests) {
      const response = await api('GET', path, { headers: reader });
      expect({ path, status: response.status }).toEqual({ path, status: 200 });
    }
    expect((await api('GET', `/v1/pets/${pet.id}`, { headers: reader })).body).toEqual(pet);
  });

  it('refuses anything but GET to a catalog:read key with 403 FORBIDDEN, and changes nothing', async () => {
    const pet = await createPet();
    const name = uniqueName('Forbidden');
    const requests: Array<[string, string, unknown]> = [
      ['POST', '/v1/pets', { name, categoryId: pet.categoryId }],
      ['PUT', `/v1/pets/${pet.id}`, { name, categoryId: pet.categoryId }],
      ['PATCH', `/v1/pets/${pet.id}`, { status: 'sold' }],
      ['DELETE', `/v1/pets/${pet.id}`, undefined],
      ['POST', '/v1/categories', { name }],
      ['PUT', `/v1/categories/${pet.categoryId}`, { name }],
      ['DELETE', `/v1/categories/${pet.categoryId}`, undefined],
    ];
    for (const [method, path, body] of requests) {
      expectError(await api(method, path, { body, headers: reader }), 403, 'FORBIDDEN');
    }
    expect((await api('GET', `/v1/pets/${pet.id}`)).body).toEqual(pet);
    expect((await api('GET', `/v1/pets?name=${encodeURIComponent(name)}`)).body).toEqual([]);
  });

  it('refuses another area to a catalog:read key', async () => {
    const pet = await createPet();
    expectError(await api('GET', '/v1/store/orders', { headers: reader }), 403, 'FORBIDDEN');
    expectError(await api('GET', `/v1/store/inventory/${pet.id}`, { headers: reader }), 403, 'FORBIDDEN');
    expectError(await api('POST', '/v1/store/orders', { body: { petId: pet.id, quantity: 1 }, headers: reader }), 403, 'FORBIDDEN');
  });

  it('authorises before judging the form or the size of the request', async () => {
    const pet = await createPet();
    expectError(await api('POST', '/v1/pets', { body: { name: '' }, headers: reader }), 403, 'FORBIDDEN');
    expectError(
      await api('POST', '/v1/pets', { rawBody: '{', headers: { ...reader, 'content-type': 'application/json' } }),
      403,
      'FORBIDDEN',
    );
    expectError(
      await api('POST', '/v1/pets', { rawBody: 'x'.repeat(70_000), headers: { ...reader, 'content-type': 'text/plain' } }),
      403,
      'FORBIDDEN',
    );
    expectError(await api('PATCH', `/v1/pets/${pet.id}`, { body: {}, headers: reader }), 403, 'FORBIDDEN');
  });

  it('refuses through the client an order placed with a key that may not write orders: a typed 403 at once, no retry, no order', async () => {
    const pet = await createPet();
    for (const [apiKey, status, code] of [
      [READER_KEY, 403, 'FORBIDDEN'],
      [HASHED_KEY, 403, 'FORBIDDEN'],
      ['no-such-key-0123456789', 401, 'UNAUTHORIZED'],
    ] as const) {
      const attempts: Attempt[] = [];
      const store = petstore({ apiKey, onAttempt: (attempt) => attempts.push(attempt) });
      await expect(store.placeOrder({ petId: pet.id, quantity: 1 })).rejects.toMatchObject({ name: 'PetstoreApiError', status, code, outcomeUnknown: false });
      expect(attempts).toEqual([{ operation: 'placeOrder', status, code, willRetry: false }]);
    }
    // The orders:read key reads what the others could not place: nothing.
    const reads: unknown[] = [];
    for await (const order of petstore({ apiKey: HASHED_KEY }).listOrders({ petId: pet.id })) reads.push(order);
    expect(reads).toEqual([]);
  });

  it('accepts a key configured by its SHA-256 only, within its scope orders:read', async () => {
    const pet = await createPet();
    const orders = await api('GET', '/v1/store/orders?limit=1', { headers: hashed });
    expect(orders.status).toBe(200);
    expect(Array.isArray(orders.body)).toBe(true);

    expectError(await api('POST', '/v1/store/orders', { body: { petId: pet.id, quantity: 1 }, headers: hashed }), 403, 'FORBIDDEN');
    expectError(await api('GET', '/v1/pets', { headers: hashed }), 403, 'FORBIDDEN');
    expectError(await api('GET', `/v1/store/inventory/${pet.id}`, { headers: hashed }), 403, 'FORBIDDEN');

    // The configured digest is no key itself.
    const digest = createHash('sha256').update(HASHED_KEY).digest('hex');
    expectError(await api('GET', '/v1/store/orders', { headers: bearer(digest) }), 401, 'UNAUTHORIZED');
  });

  it('keeps the development key, which has every scope', async () => {
    const pet = await createPet();
    expect((await api('GET', '/v1/store/orders?limit=1')).status).toBe(200);
    await eventually(
      () => api('GET', `/v1/store/inventory/${pet.id}`),
      (r) => r.status === 200,
    );
    expect((await api('PATCH', `/v1/pets/${pet.id}`, { body: { status: 'pending' } })).status).toBe(200);
  });

  it('reads the scheme name without regard to case, as HTTP defines it', async () => {
    expect((await api('GET', '/v1/pets?limit=1', { headers: { authorization: `bearer ${READER_KEY}` } })).status).toBe(200);
    expect((await api('GET', '/v1/pets?limit=1', { headers: { authorization: `BEARER ${READER_KEY}` } })).status).toBe(200);
  });

  it('leaves the public paths open to any key or none', async () => {
    for (const headers of [reader, hashed, { authorization: undefined }]) {
      for (const path of ['/openapi.json', '/docs', '/health/live']) {
        expect({ path, status: (await api('GET', path, { headers })).status }).toEqual({ path, status: 200 });
      }
    }
  });
});
