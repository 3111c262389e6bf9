import { CatalogPatterns, HealthPatterns, InventoryPatterns, OrdersPatterns } from '@petstore/contracts';
import { connect, type Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import { FakeService } from './testing/fake-service';
import { expectError, startGateway, type GatewayUnderTest } from './testing/gateway-under-test';
import { rawRequest } from './testing/raw-http';

// What a hostile or broken client can send, refused at the gateway's door with the Error
// object, before anything reaches a service (API.md §3 and §4).

const ADMIN = 'admin-key-0001';
const CATALOG_READER = 'catalog-key-0001';
const keys = [
  { name: 'admin', key: ADMIN, scopes: ['*' as const] },
  { name: 'catalog', key: CATALOG_READER, scopes: ['catalog:read' as const] },
];
const auth = (key: string) => ({ authorization: `Bearer ${key}` });

const catalog = new FakeService([...Object.values(CatalogPatterns), HealthPatterns.check]);
const orders = new FakeService([...Object.values(OrdersPatterns), HealthPatterns.check]);
const inventory = new FakeService([...Object.values(InventoryPatterns), HealthPatterns.check]);
const services = { catalog, orders, inventory };

const rex = { id: 7, name: 'Rex', categoryId: 1, status: 'available' };
const order = { id: 5, petId: 7, quantity: 1, status: 'placed', complete: false };
const never = () => new Promise(() => undefined);

let gateway: GatewayUnderTest;

beforeAll(async () => {
  await Promise.all([catalog.start(), orders.start(), inventory.start()]);
  gateway = await startGateway(services, { apiKeys: keys });
});

afterAll(async () => {
  await gateway?.close();
  await Promise.all([catalog.stop(), orders.stop(), inventory.stop()]);
});

beforeEach(() => {
  for (const service of [catalog, orders, inventory]) service.reset();
  catalog.on(CatalogPatterns.listPets, () => ({ items: [rex], hasMore: true }));
  catalog.on(CatalogPatterns.createPet, (data) => ({ id: 8, ...(data['pet'] as object) }));
  catalog.on(CatalogPatterns.createCategory, (data) => ({ id: 3, ...(data['category'] as object) }));
  orders.on(OrdersPatterns.placeOrder, () => ({ order, replayed: false }));
  orders.on(OrdersPatterns.fulfilOrder, () => order);
});

function requestText(method: string, path: string, headers: Array<[string, string]>, body = ''): string {
  const lines = [`${method} ${path} HTTP/1.1`, ...headers.map(([name, value]) => `${name}: ${value}`)];
  if (body) lines.push(`Content-Length: ${Buffer.byteLength(body)}`);
  return `${lines.join('\r\n')}\r\nConnection: close\r\n\r\n${body}`;
}

describe('time and connection bounds', () => {
  let bounded: GatewayUnderTest;
  beforeAll(async () => {
    bounded = await startGateway(services, { apiKeys: keys }, { requestTimeoutMs: 300, maxConnections: 3 });
  });
  afterAll(async () => {
    await bounded.close();
  });

  it('answers 408 REQUEST_TIMEOUT to a body that never completes', async () => {
    const start = `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ADMIN}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"na`;
    const response = await rawRequest(bounded.port, start, { timeoutMs: 4000 });
    expectError(response, 408, 'REQUEST_TIMEOUT');
    expect(catalog.received).toEqual([]);
  });

  it('answers 408 REQUEST_TIMEOUT to headers that never complete', async () => {
    const response = await rawRequest(bounded.port, `GET /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ADMIN}\r\n`, { timeoutMs: 4000 });
    expectError(response, 408, 'REQUEST_TIMEOUT');
  });

  it('refuses connections beyond its bound', async () => {
    const open: Socket[] = [];
    try {
      for (let i = 0; i < 3; i += 1) {
        open.push(await new Promise<Socket>((resolve) => { const socket = connect(bounded.port, '127.0.0.1', () => resolve(socket)); }));
      }
      const extra = await rawRequest(bounded.port, requestText('GET', '/health/live', [['Host', 'x']]), { timeoutMs: 2000 });
      expect(extra.closedSilently).toBe(true);
    } finally {
      for (const socket of open) socket.destroy();
    }
  });
});

describe('text no service can store: U+0000 and unpaired surrogates', () => {
  const headers = auth(ADMIN);

  it('refuses NUL in a query parameter', async () => {
    const response = await gateway.call('GET', '/v1/pets?name=%00', { headers });
    expectError(response, 400, 'VALIDATION_FAILED');
    expect(response.body.details).toEqual([{ field: 'name', message: expect.stringMatching(/U\+0000/) }]);
    expect(catalog.received).toEqual([]);
  });

  it.each([
    ['NUL', '/v1/pets', '{"name":"a\\u0000b","categoryId":1}'],
    ['NUL', '/v1/categories', '{"name":"Dogs","description":"x\\u0000"}'],
    ['a lone high surrogate', '/v1/pets', '{"name":"a\\ud800b","categoryId":1}'],
    ['a lone low surrogate', '/v1/categories', '{"name":"a\\udc00"}'],
    ['a reversed pair', '/v1/categories', '{"name":"a\\udc00\\ud800"}'],
  ])('refuses %s in a body field (POST %s)', async (_, path, body) => {
    const response = await gateway.call('POST', path, { headers: { ...headers, 'content-type': 'application/json' }, body });
    expectError(response, 400, 'VALIDATION_FAILED');
    expect(response.body.details).toEqual([{ field: expect.stringMatching(/^(name|description)$/), message: expect.stringMatching(/U\+0000/) }]);
    expect(catalog.received).toEqual([]);
  });

  it('takes characters outside the BMP written as a surrogate pair', async () => {
    const response = await gateway.call('POST', '/v1/categories', { headers: { ...headers, 'content-type': 'application/json' }, body: '{"name":"Dogs \\ud83d\\udc36"}' });
    expect(response.status).toBe(201);
    expect(catalog.received[0].data['category']).toEqual({ name: 'Dogs 🐶' });
  });
});

describe('shipDate', () => {
  const headers = auth(ADMIN);

  it.each([
    '9999-12-31T23:59:59-23:59',
    '0001-01-01T00:00:00+23:59',
    '1969-12-31T23:59:59Z',
    '2026-12-31T23:59:60Z',
    '2026-06-30T23:59:60Z',
  ])('refuses %s, outside 1970-01-01T00:00:00Z..9999-12-31T23:59:59Z or a leap second', async (shipDate) => {
    const placed = await gateway.call('POST', '/v1/store/orders', { headers, json: { petId: 7, quantity: 1, shipDate } });
    expectError(placed, 400, 'VALIDATION_FAILED');
    expect(placed.body.details).toEqual([{ field: 'shipDate', message: expect.any(String) }]);
    expectError(await gateway.call('PATCH', '/v1/store/orders/5', { headers, json: { complete: true, shipDate } }), 400, 'VALIDATION_FAILED');
    expect(orders.received).toEqual([]);
  });

  it.each(['1970-01-01T00:00:00Z', '9999-12-31T23:59:59Z', '9999-12-31T23:59:59.999Z', '1970-01-01T01:00:00+01:00', '2026-05-01T10:00:00.5+02:00'])(
    'takes %s',
    async (shipDate) => {
      expect((await gateway.call('POST', '/v1/store/orders', { headers, json: { petId: 7, quantity: 1, shipDate } })).status).toBe(201);
    },
  );
});

describe('__proto__ and other inherited names in the query', () => {
  it.each(['__proto__=x', '__proto__=x&__proto__=y', 'constructor=1', 'toString=1', '__proto__[limit]=1'])('refuses %s as an unknown parameter', async (query) => {
    const response = await gateway.call('GET', `/v1/pets?${query}`, { headers: auth(ADMIN) });
    expectError(response, 400, 'VALIDATION_FAILED');
    expect(response.body.details[0].message).toBe('is not a known query parameter');
    expect(catalog.received).toEqual([]);
  });
});

describe('the scope before the route', () => {
  it.each([
    ['DELETE', '/v1/store/%6Frders'],
    ['GET', '/v1/store/%6Frders/1/nothing'],
    ['GET', '/v1/store/orders/1/nothing'],
    ['GET', 'http://evil.example/v1/store/orders/1/nothing'],
    ['DELETE', 'http://evil.example/v1/store/orders'],
    ['DELETE', '/v1/store//orders'],
  ])('answers 403 to %s %s for a key without the area, whether or not the route exists', async (method, target) => {
    const response = await rawRequest(gateway.port, requestText(method, target, [['Host', 'x'], ['Authorization', `Bearer ${CATALOG_READER}`]]));
    expectError(response, 403, 'FORBIDDEN');
  });
});

describe('Link of the next page', () => {
  it('is built from the path and query only, never the authority of an absolute-form target', async () => {
    const response = await rawRequest(gateway.port, requestText('GET', 'http://evil.example/v1/pets?limit=1', [['Host', 'x'], ['Authorization', `Bearer ${ADMIN}`]]));
    expect(response.status).toBe(200);
    expect(response.headers['link']).toBe('</v1/pets?limit=1&after=7>; rel="next"');
  });
});

describe('refusals at the HTTP level', () => {
  const key: [string, string] = ['Authorization', `Bearer ${ADMIN}`];

  it('answers 400 BAD_REQUEST without a Host header', async () => {
    expectError(await rawRequest(gateway.port, requestText('GET', '/v1/pets', [key])), 400, 'BAD_REQUEST');
  });

  it('answers 400 BAD_REQUEST to two Host headers', async () => {
    expectError(await rawRequest(gateway.port, requestText('GET', '/v1/pets', [['Host', 'a'], ['Host', 'b'], key])), 400, 'BAD_REQUEST');
    expect(catalog.received).toEqual([]);
  });

  it('answers 417 BAD_REQUEST to an Expect it cannot meet, and continues on 100-continue', async () => {
    expectError(await rawRequest(gateway.port, requestText('GET', '/v1/pets', [['Host', 'x'], key, ['Expect', 'foo']])), 417, 'BAD_REQUEST');
    const continued = await rawRequest(
      gateway.port,
      requestText('POST', '/v1/categories', [['Host', 'x'], key, ['Content-Type', 'application/json'], ['Expect', '100-continue']], '{"name":"Dogs"}'),
    );
    expect(continued.status).toBe(100);
  });

  it('answers 431 HEADERS_TOO_LARGE', async () => {
    expectError(await rawRequest(gateway.port, requestText('GET', '/v1/pets', [['Host', 'x'], key, ['X-Padding', 'p'.repeat(20_000)]])), 431, 'HEADERS_TOO_LARGE');
  });

  it('answers 414 URI_TOO_LONG', async () => {
    expectError(await rawRequest(gateway.port, requestText('GET', `/v1/pets?name=${'n'.repeat(9000)}`, [['Host', 'x'], key])), 414, 'URI_TOO_LONG');
    expectError(await rawRequest(gateway.port, requestText('GET', `/v1/pets?name=${'n'.repeat(20_000)}`, [['Host', 'x'], key])), 414, 'URI_TOO_LONG');
  });

  it('answers 400 BAD_REQUEST to a request that is not HTTP', async () => {
    expectError(await rawRequest(gateway.port, 'GET /v1/pets HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n', { endAfterWrite: true }), 400, 'BAD_REQUEST');
  });
});

describe('the deprecated GET /v1/pets/{petId}', () => {
  const deprecation = (response: { headers: Record<string, unknown> }, id: string) => {
    expect(response.headers['deprecation']).toBe('@1793491200');
    expect(response.headers['sunset']).toMatch(/ GMT$/);
    expect(response.headers['link']).toBe(`</v2/pets/${encodeURIComponent(id)}>; rel="successor-version"`);
  };

  it('keeps its headers on an over-long or badly percent-encoded id', async () => {
    const long = '1'.repeat(200);
    const tooLong = await gateway.call('GET', `/v1/pets/${long}`, { headers: auth(ADMIN) });
    expectError(tooLong, 400, 'VALIDATION_FAILED');
    deprecation(tooLong, long);
    const broken = await gateway.call('GET', '/v1/pets/%E0%A4%A', { headers: auth(ADMIN) });
    expectError(broken, 400, 'VALIDATION_FAILED');
    deprecation(broken, '%E0%A4%A');
    deprecation(await gateway.call('GET', '/v1/pets/%E0%A4%A'), '%E0%A4%A');
  });

  it('answers 410 to any id after the sunset', async () => {
    const retired = await startGateway(services, { apiKeys: keys, petsV1Sunset: new Date('2020-01-01T00:00:00Z') });
    try {
      for (const id of ['1'.repeat(200), '%E0%A4%A', 'abc']) {
        const response = await retired.call('GET', `/v1/pets/${id}`, { headers: auth(ADMIN) });
        expectError(response, 410, 'ENDPOINT_SUNSET');
        deprecation(response, id);
      }
    } finally {
      await retired.close();
    }
  });
});

describe('Content-Encoding', () => {
  const headers = { ...auth(ADMIN), 'content-type': 'application/json' };
  const body = '{"name":"Dogs"}';

  it.each([
    ['gzip with a plain body', 'gzip', body],
    ['gzip with a gzip body', 'gzip', gzipSync(body)],
    ['br', 'br', body],
    ['identity, then gzip', 'identity, gzip', body],
  ])('answers 415 UNSUPPORTED_CONTENT_ENCODING to %s', async (_, encoding, payload) => {
    expectError(await gateway.call('POST', '/v1/categories', { headers: { ...headers, 'content-encoding': encoding }, body: payload }), 415, 'UNSUPPORTED_CONTENT_ENCODING');
    expect(catalog.received).toEqual([]);
  });

  it('takes identity', async () => {
    expect((await gateway.call('POST', '/v1/categories', { headers: { ...headers, 'content-encoding': 'identity' }, body })).status).toBe(201);
  });
});

describe('headers that must appear once', () => {
  const body = '{"petId":7,"quantity":1}';

  it('answers 400 to two Idempotency-Key headers instead of joining them', async () => {
    const request = requestText(
      'POST',
      '/v1/store/orders',
      [['Host', 'x'], ['Authorization', `Bearer ${ADMIN}`], ['Content-Type', 'application/json'], ['Idempotency-Key', 'a'], ['Idempotency-Key', 'b']],
      body,
    );
    const response = await rawRequest(gateway.port, request);
    expectError(response, 400, 'VALIDATION_FAILED');
    expect(response.body.details).toEqual([{ field: 'Idempotency-Key', message: 'must be sent once' }]);
    expect(orders.received).toEqual([]);
  });

  it('answers 400 to two Authorization headers', async () => {
    const request = requestText('GET', '/v1/pets', [['Host', 'x'], ['Authorization', `Bearer ${ADMIN}`], ['Authorization', 'Bearer nobody']]);
    const response = await rawRequest(gateway.port, request);
    expectError(response, 400, 'VALIDATION_FAILED');
    expect(response.body.details).toEqual([{ field: 'Authorization', message: 'must be sent once' }]);
    expect(catalog.received).toEqual([]);
  });
});

describe('an outcome the gateway cannot know', () => {
  it('answers 504 when the connection breaks after the request was sent, not 503', async () => {
    orders.on(OrdersPatterns.placeOrder, () => {
      orders.dropConnections();
      return never();
    });
    const response = await gateway.call('POST', '/v1/store/orders', { headers: auth(ADMIN), json: { petId: 7, quantity: 1 } });
    expectError(response, 504, 'UPSTREAM_TIMEOUT');
    expect(orders.received).toHaveLength(1);
  });

  it('answers 503 when the request could not be sent', async () => {
    await inventory.stop();
    try {
      expectError(await gateway.call('PUT', '/v1/store/inventory/7', { headers: auth(ADMIN), json: { quantity: 1 } }), 503, 'SERVICE_UNAVAILABLE');
    } finally {
      await inventory.start();
    }
  });
});

describe('numbers beyond int64', () => {
  it('reports an id beyond int64 among the other problems of the body', async () => {
    const response = await gateway.call('POST', '/v1/pets', { headers: { ...auth(ADMIN), 'content-type': 'application/json' }, body: '{"name":"","categoryId":18446744073709551616}' });
    expectError(response, 400, 'VALIDATION_FAILED');
    expect(response.body.details.map((detail: { field: string }) => detail.field)).toEqual(['name', 'categoryId']);
    expect(catalog.received).toEqual([]);
  });
});
