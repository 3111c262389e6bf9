import { CatalogPatterns, ERROR_CODES, HealthPatterns, InventoryPatterns, OrdersPatterns } from '@petstore/contracts';
import { connect } from 'node:net';
import type { GatewayConfig } from './config';
import { closedPort, FakeService, rpcError } from './testing/fake-service';
import { startGateway as startTestGateway, type GatewayUnderTest } from './testing/gateway-under-test';
import type { HttpResponse } from './testing/http-client';

// Gateway-level behaviour only, with small real TCP microservices standing in for the
// services. What the services do with a request is tested end to end in apps/gateway-e2e.

const ADMIN = 'admin-key-0001';
const READER = 'reader-key-0001';
const ORDERS = 'orders-key-0001';
const auth = (key: string) => ({ authorization: `Bearer ${key}` });

const catalog = new FakeService([...Object.values(CatalogPatterns), HealthPatterns.check]);
const orders = new FakeService([...Object.values(OrdersPatterns), HealthPatterns.check]);
const inventory = new FakeService([...Object.values(InventoryPatterns), HealthPatterns.check]);

const rex = { id: 7, name: 'Rex', categoryId: 1, status: 'available' };
const never = () => new Promise(() => undefined);

interface Running extends GatewayUnderTest {
  app: { close(): Promise<void> };
}

async function startGateway(overrides: Partial<GatewayConfig> = {}): Promise<Running> {
  const running = await startTestGateway(
    { catalog, orders, inventory },
    {
      apiKeys: [
        { name: 'admin', key: ADMIN, scopes: ['*'] },
        { name: 'reader', key: READER, scopes: ['catalog:read', 'orders:read', 'inventory:read'] },
        { name: 'shop', key: ORDERS, scopes: ['orders:read', 'orders:write'] },
      ],
      ...overrides,
    },
  );
  return { ...running, app: { close: running.close } };
}

function expectError(response: HttpResponse, status: number, code: string): void {
  expect({ status: response.status, code: response.body?.code }).toEqual({ status, code });
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  expect(response.body.status).toBe(status);
  expect(typeof response.body.message).toBe('string');
  expect(response.body.requestId).toBe(response.headers['x-request-id']);
}

let gateway: Running;

beforeAll(async () => {
  await Promise.all([catalog.start(), orders.start(), inventory.start()]);
  gateway = await startGateway();
});

afterAll(async () => {
  await gateway?.app.close();
  await Promise.all([catalog.stop(), orders.stop(), inventory.stop()]);
});

beforeEach(() => {
  for (const service of [catalog, orders, inventory]) service.reset();
});

describe('authentication', () => {
  it.each([
    ['no Authorization header', {}],
    ['another scheme', { authorization: `Basic ${Buffer.from(`x:${ADMIN}`).toString('base64')}` }],
    ['an unknown key', auth('not-a-key')],
    ['an empty bearer token', { authorization: 'Bearer ' }],
  ])('answers 401 with WWW-Authenticate for %s', async (_, headers) => {
    const response = await gateway.call('GET', '/v1/pets', { headers });
    expectError(response, 401, 'UNAUTHORIZED');
    expect(response.headers['www-authenticate']).toBe('Bearer');
    expect(response.headers['ratelimit']).toBeUndefined();
    expect(catalog.received).toEqual([]);
  });

  it('authenticates before revealing that a path does not exist', async () => {
    expectError(await gateway.call('GET', '/v3/pets'), 401, 'UNAUTHORIZED');
    expectError(await gateway.call('GET', '/'), 401, 'UNAUTHORIZED');
    expectError(await gateway.call('GET', '/v3/pets', { headers: auth(ADMIN) }), 404, 'NOT_FOUND');
    expectError(await gateway.call('GET', '/v1/pets/1/toys', { headers: auth(ADMIN) }), 404, 'NOT_FOUND');
  });

  it('serves health, the document and the docs page without a key', async () => {
    expect((await gateway.call('GET', '/health/live')).status).toBe(200);
    const document = await gateway.call('GET', '/openapi.json');
    expect(document.status).toBe(200);
    expect(document.body.openapi).toBe('3.0.3');
    const page = await gateway.call('GET', '/docs');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.text).toContain('/docs/swagger-ui-bundle.js');
    const bundle = await gateway.call('GET', '/docs/swagger-ui-bundle.js');
    expect(bundle.status).toBe(200);
    expect(bundle.text).toContain('SwaggerUIBundle');
    expect((await gateway.call('GET', '/docs/swagger-initializer.js')).text).toContain("url: '/openapi.json'");
    expectError(await gateway.call('GET', '/docs/secrets.txt'), 404, 'NOT_FOUND');
  });
});

describe('authorisation', () => {
  it('needs the :write scope of the area for anything but GET', async () => {
    expectError(await gateway.call('POST', '/v1/pets', { headers: auth(READER), json: { name: 'Rex', categoryId: 1 } }), 403, 'FORBIDDEN');
    expectError(await gateway.call('DELETE', '/v1/categories/1', { headers: auth(READER) }), 403, 'FORBIDDEN');
    expectError(await gateway.call('PUT', '/v1/store/inventory/1', { headers: auth(READER), json: { quantity: 1 } }), 403, 'FORBIDDEN');
    expect(catalog.received).toEqual([]);
  });

  it('needs the :read scope of the area for GET', async () => {
    expectError(await gateway.call('GET', '/v1/pets', { headers: auth(ORDERS) }), 403, 'FORBIDDEN');
    expectError(await gateway.call('GET', '/v2/pets/1', { headers: auth(ORDERS) }), 403, 'FORBIDDEN');
    expectError(await gateway.call('GET', '/v1/store/inventory', { headers: auth(ORDERS) }), 403, 'FORBIDDEN');
    orders.on(OrdersPatterns.listOrders, () => ({ items: [], hasMore: false }));
    expect((await gateway.call('GET', '/v1/store/orders', { headers: auth(ORDERS) })).status).toBe(200);
  });

  it('lets a read key read', async () => {
    catalog.on(CatalogPatterns.listPets, () => ({ items: [rex], hasMore: false }));
    const response = await gateway.call('GET', '/v1/pets', { headers: auth(READER) });
    expect(response.status).toBe(200);
    expect(response.body).toEqual([rex]);
  });
});

describe('order of checks', () => {
  const big = Buffer.alloc(70 * 1024, 'a');

  it('authentication, then authorisation, then body size, then form', async () => {
    const bad = { body: big, headers: { 'content-type': 'text/plain' } };
    expectError(await gateway.call('POST', '/v1/pets', bad), 401, 'UNAUTHORIZED');
    expectError(await gateway.call('POST', '/v1/pets', { ...bad, headers: { ...bad.headers, ...auth(READER) } }), 403, 'FORBIDDEN');
    expectError(await gateway.call('POST', '/v1/pets', { ...bad, headers: { ...bad.headers, ...auth(ADMIN) } }), 413, 'PAYLOAD_TOO_LARGE');
    const notJson = { body: '{"name":', headers: { 'content-type': 'application/json', ...auth(ADMIN) } };
    expectError(await gateway.call('POST', '/v1/pets/abc', { ...notJson, body: '{"name":' }), 405, 'METHOD_NOT_ALLOWED');
    expectError(await gateway.call('PUT', '/v1/pets/abc', notJson), 400, 'INVALID_JSON');
    expectError(await gateway.call('PUT', '/v1/pets/abc', { ...notJson, body: '{"x":1}' }), 400, 'VALIDATION_FAILED');
    expect(catalog.received).toEqual([]);
  });

  it('refuses a body over 64 KiB, announced or streamed', async () => {
    const headers = { 'content-type': 'application/json', ...auth(ADMIN) };
    expectError(await gateway.call('POST', '/v1/pets', { body: big, headers }), 413, 'PAYLOAD_TOO_LARGE');
    const chunked = await gateway.call('POST', '/v1/pets', { body: big, headers: { ...headers, 'transfer-encoding': 'chunked' } });
    expect(chunked.status).toBe(413);
  });

  it('accepts a body of exactly 64 KiB as far as its size goes', async () => {
    const body = JSON.stringify({ name: 'x'.repeat(64 * 1024 - 30), categoryId: 1 });
    const padded = body + ' '.repeat(64 * 1024 - Buffer.byteLength(body));
    const response = await gateway.call('POST', '/v1/pets', { body: padded, headers: { 'content-type': 'application/json', ...auth(ADMIN) } });
    expectError(response, 400, 'VALIDATION_FAILED');
    expect(response.body.details).toEqual([{ field: 'name', message: 'must be at most 100 characters long' }]);
  });
});

describe('the request form', () => {
  const headers = auth(ADMIN);

  it('refuses a body that is not JSON by its type', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
      expectError(await gateway.call('POST', '/v1/pets', { body: 'name=Rex', headers: { ...headers, 'content-type': type } }), 400, 'UNSUPPORTED_CONTENT_TYPE');
    }
    expectError(await gateway.call('POST', '/v1/pets', { body: '{"name":"Rex","categoryId":1}', headers }), 400, 'UNSUPPORTED_CONTENT_TYPE');
  });

  it('takes every JSON media type, in any charset', async () => {
    catalog.on(CatalogPatterns.patchPet, () => rex);
    for (const type of ['application/json', 'application/json; charset=UTF-8', 'application/merge-patch+json', 'application/json;charset=iso-8859-1']) {
      const response = await gateway.call('PATCH', '/v1/pets/7', { body: '{"name":"Rex"}', headers: { ...headers, 'content-type': type } });
      expect({ type, status: response.status }).toEqual({ type, status: 200 });
    }
  });

  it('refuses JSON that does not parse', async () => {
    expectError(await gateway.call('POST', '/v1/pets', { body: "{'name':'Rex'}", headers: { ...headers, 'content-type': 'application/json' } }), 400, 'INVALID_JSON');
  });

  it('answers every broken rule in details', async () => {
    const response = await gateway.call('POST', '/v1/pets?dryRun=true', { headers, json: { id: 1, name: ' ', categoryId: '1', status: null } });
    expectError(response, 400, 'VALIDATION_FAILED');
    expect(response.body.details).toEqual([
      { field: 'dryRun', message: 'is not a known query parameter' },
      { field: 'id', message: 'is read-only' },
      { field: 'name', message: 'must not be blank' },
      { field: 'categoryId', message: 'must be an integer' },
      { field: 'status', message: 'must not be null' },
    ]);
  });

  // Written as the client sent it: JSON.parse would round each to 2^53 or more, an id never sent.
  it.each(['9007199254740992', '9007199254740993', '9223372036854775806'])('refuses the body id %s with 400 naming the field, asking no service', async (id) => {
    const response = await gateway.call('POST', '/v1/pets', { body: `{"name":"Rex","categoryId":${id}}`, headers: { ...headers, 'content-type': 'application/json' } });
    expectError(response, 400, 'VALIDATION_FAILED');
    expect(response.body.details).toEqual([{ field: 'categoryId', message: 'must be at most 9007199254740991' }]);
    expect(catalog.received).toEqual([]);
  });

  it.each(['abc', '0', '-1', '1.5', '01', '9223372036854775808'])('refuses the path id %s', async (id) => {
    const response = await gateway.call('GET', `/v1/store/orders/${id}`, { headers });
    expectError(response, 400, 'VALIDATION_FAILED');
    expect(response.body.details).toEqual([{ field: 'orderId', message: 'must be a positive 64-bit integer' }]);
  });

  it('forwards the largest int64 path id, as text, for the service to not find', async () => {
    orders.on(OrdersPatterns.getOrder, () => {
      throw rpcError(404, 'ORDER_NOT_FOUND', 'Order 9223372036854775807 does not exist');
    });
    expectError(await gateway.call('GET', '/v1/store/orders/9223372036854775807', { headers }), 404, 'ORDER_NOT_FOUND');
    expect(orders.received[0].data['id']).toBe('9223372036854775807');
  });

  it('refuses a malformed path and an over-long path parameter with the Error shape', async () => {
    expectError(await gateway.call('GET', '/v1/pets/%E0%A4%A', { headers }), 400, 'VALIDATION_FAILED');
    expectError(await gateway.call('GET', `/v1/pets/${'1'.repeat(200)}`, { headers }), 400, 'VALIDATION_FAILED');
    expectError(await gateway.call('GET', '/v1/pets/%E0%A4%A'), 401, 'UNAUTHORIZED');
  });

  it('answers a request that is not valid HTTP with the Error shape', async () => {
    const { port } = new URL(gateway.url);
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () => socket.end('GET /v1/pets HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n'));
      let text = '';
      socket.on('data', (chunk) => (text += chunk.toString()));
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
    });
    expect(raw).toMatch(/^HTTP\/1\.1 400 /);
    const requestId = /X-Request-Id: (\S+)/.exec(raw)?.[1];
    expect(JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4))).toMatchObject({ status: 400, code: 'BAD_REQUEST', requestId });
  });

  it('refuses a cancel with a body, and takes it without one', async () => {
    orders.on(OrdersPatterns.cancelOrder, () => ({ id: 3, petId: 7, quantity: 1, status: 'cancelled', complete: false }));
    expectError(await gateway.call('POST', '/v1/store/orders/3/cancel', { headers, json: { reason: 'x' } }), 400, 'VALIDATION_FAILED');
    expect((await gateway.call('POST', '/v1/store/orders/3/cancel', { headers })).status).toBe(200);
    expect((await gateway.call('POST', '/v1/store/orders/3/cancel', { headers: { ...headers, 'content-type': 'application/json' } })).status).toBe(200);
  });

  it.each([
    ['empty', '""'],
    ['too long', 'k'.repeat(256)],
  ])('refuses an Idempotency-Key that is %s', async (_, key) => {
    const response = await gateway.call('POST', '/v1/store/orders', { headers: { ...headers, 'idempotency-key': key }, json: { petId: 7, quantity: 1 } });
    expectError(response, 400, 'VALIDATION_FAILED');
    expect(response.body.details[0].field).toBe('Idempotency-Key');
    expect(orders.received).toEqual([]);
  });
});

describe('routes and methods', () => {
  it('answers 405 with Allow for a known path and another method', async () => {
    const response = await gateway.call('DELETE', '/v1/pets', { headers: auth(ADMIN) });
    expectError(response, 405, 'METHOD_NOT_ALLOWED');
    expect(response.headers['allow']).toBe('GET, HEAD, POST');
    const onItem = await gateway.call('POST', '/v1/store/inventory/1', { headers: auth(ADMIN), json: {} });
    expectError(onItem, 405, 'METHOD_NOT_ALLOWED');
    expect(onItem.headers['allow']).toBe('GET, HEAD, PUT');
    const onPublic = await gateway.call('POST', '/openapi.json');
    expectError(onPublic, 405, 'METHOD_NOT_ALLOWED');
    expect(onPublic.headers['allow']).toBe('GET, HEAD');
    expectError(await gateway.call('GET', '/docs/nothing-here.js'), 404, 'NOT_FOUND');
  });

  it('answers HEAD like GET without a body', async () => {
    catalog.on(CatalogPatterns.listPets, () => ({ items: [rex], hasMore: false }));
    const response = await gateway.call('HEAD', '/v1/pets', { headers: auth(READER) });
    expect(response.status).toBe(200);
    expect(response.text).toBe('');
  });
});

describe('request ids', () => {
  it('echoes a well-formed client id, on success and on errors', async () => {
    catalog.on(CatalogPatterns.listPets, () => ({ items: [], hasMore: false }));
    const ok = await gateway.call('GET', '/v1/pets', { headers: { ...auth(ADMIN), 'x-request-id': 'trace-1:a.b_c' } });
    expect(ok.headers['x-request-id']).toBe('trace-1:a.b_c');
    expect(catalog.received[0].data['requestId']).toBe('trace-1:a.b_c');
    const refused = await gateway.call('GET', '/v1/pets', { headers: { 'x-request-id': 'trace-2' } });
    expect(refused.headers['x-request-id']).toBe('trace-2');
    expect(refused.body.requestId).toBe('trace-2');
  });

  it('replaces an id that breaks the rule, and invents one when there is none', async () => {
    for (const id of ['has space', 'x'.repeat(129), 'semi;colon']) {
      const response = await gateway.call('GET', '/health/live', { headers: { 'x-request-id': id } });
      expect(response.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    }
    const first = await gateway.call('GET', '/v9', { headers: auth(ADMIN) });
    const second = await gateway.call('GET', '/v9', { headers: auth(ADMIN) });
    expect(first.headers['x-request-id']).not.toBe(second.headers['x-request-id']);
    expect(first.body.requestId).toBe(first.headers['x-request-id']);
  });
});

describe('rate limiting', () => {
  let limited: Running;
  beforeAll(async () => {
    limited = await startGateway({ rateLimitPerSecond: 2 });
  });
  afterAll(async () => {
    await limited.app.close();
  });

  it('counts per key, announces the policy on every authenticated response and answers 429 over it', async () => {
    const first = await limited.call('GET', '/v1/store/inventory', { headers: auth(ORDERS) });
    expectError(first, 403, 'FORBIDDEN');
    expect(first.headers['ratelimit-policy']).toBe('"default";q=2;w=1');
    expect(first.headers['ratelimit']).toBe('"default";r=1;t=1');
    const second = await limited.call('GET', '/v9', { headers: auth(ORDERS) });
    expect(second.headers['ratelimit']).toBe('"default";r=0;t=1');
    const third = await limited.call('GET', '/v1/store/inventory', { headers: auth(ORDERS) });
    expectError(third, 429, 'RATE_LIMITED');
    expect(third.headers['retry-after']).toBe('1');
    expect(third.headers['ratelimit']).toBe('"default";r=0;t=1');
    const otherKey = await limited.call('GET', '/v9', { headers: auth(READER) });
    expectError(otherKey, 404, 'NOT_FOUND');
    expect(otherKey.headers['ratelimit']).toBe('"default";r=1;t=1');
    const anonymous = await limited.call('GET', '/v1/pets');
    expect(anonymous.headers['ratelimit']).toBeUndefined();
  });

  it('is off, without headers, at 0', async () => {
    const unlimited = await startGateway({ rateLimitPerSecond: 0 });
    try {
      for (let i = 0; i < 5; i++) {
        const response = await unlimited.call('GET', '/v9', { headers: auth(ADMIN) });
        expect(response.status).toBe(404);
        expect(response.headers['ratelimit']).toBeUndefined();
        expect(response.headers['ratelimit-policy']).toBeUndefined();
      }
    } finally {
      await unlimited.app.close();
    }
  });
});

describe('deprecation of GET /v1/pets/{petId}', () => {
  const expectDeprecation = (response: HttpResponse, id: string) => {
    expect(response.headers['deprecation']).toBe('@1793491200');
    expect(response.headers['sunset']).toBe('Tue, 01 Jan 2999 00:00:00 GMT');
    expect(response.headers['link']).toBe(`</v2/pets/${id}>; rel="successor-version"`);
  };

  it('announces it on every response, errors included', async () => {
    catalog.on(CatalogPatterns.getPet, (data) => {
      if (data['id'] === '7') return rex;
      throw rpcError(404, 'PET_NOT_FOUND', `Pet ${data['id']} does not exist`);
    });
    const found = await gateway.call('GET', '/v1/pets/7', { headers: auth(READER) });
    expect(found.status).toBe(200);
    expect(found.body).toEqual(rex);
    expectDeprecation(found, '7');
    const missing = await gateway.call('GET', '/v1/pets/8', { headers: auth(READER) });
    expectError(missing, 404, 'PET_NOT_FOUND');
    expectDeprecation(missing, '8');
    expectDeprecation(await gateway.call('GET', '/v1/pets/8'), '8');
    expectDeprecation(await gateway.call('GET', '/v1/pets/x', { headers: auth(READER) }), 'x');
    expectDeprecation(await gateway.call('GET', '/v1/pets/8', { headers: auth(ORDERS) }), '8');
  });

  it('is not on other operations', async () => {
    catalog.on(CatalogPatterns.replacePet, () => rex);
    const response = await gateway.call('PUT', '/v1/pets/7', { headers: auth(ADMIN), json: { name: 'Rex', categoryId: 1 } });
    expect(response.status).toBe(200);
    expect(response.headers['deprecation']).toBeUndefined();
    expect(response.headers['sunset']).toBeUndefined();
  });

  it('answers 410 with the same headers after the sunset, after authentication', async () => {
    const retired = await startGateway({ petsV1Sunset: new Date('2020-01-01T00:00:00Z') });
    try {
      const response = await retired.call('GET', '/v1/pets/7', { headers: auth(READER) });
      expectError(response, 410, 'ENDPOINT_SUNSET');
      expect(response.headers['sunset']).toBe('Wed, 01 Jan 2020 00:00:00 GMT');
      expect(response.headers['deprecation']).toBe('@1793491200');
      expect(response.headers['link']).toBe('</v2/pets/7>; rel="successor-version"');
      expectError(await retired.call('GET', '/v1/pets/7'), 401, 'UNAUTHORIZED');
      expectError(await retired.call('GET', '/v1/pets/7', { headers: auth(ORDERS) }), 403, 'FORBIDDEN');
      expectError(await retired.call('GET', '/v1/pets/abc', { headers: auth(READER) }), 410, 'ENDPOINT_SUNSET');
      expect(catalog.received).toEqual([]);
    } finally {
      await retired.app.close();
    }
  });
});

describe('forwarding', () => {
  const headers = auth(ADMIN);

  it('creates a pet with its default status and answers 201 with Location', async () => {
    catalog.on(CatalogPatterns.createPet, (data) => ({ id: 41, ...(data['pet'] as object) }));
    const response = await gateway.call('POST', '/v1/pets', { headers: { ...headers, 'x-request-id': 'create-1' }, json: { name: 'Rex', categoryId: 1 } });
    expect(response.status).toBe(201);
    expect(response.headers['location']).toBe('/v2/pets/41');
    expect(response.body).toEqual({ id: 41, name: 'Rex', categoryId: 1, status: 'available' });
    expect(catalog.received).toEqual([{ cmd: 'pets.create', data: { pet: { name: 'Rex', categoryId: 1, status: 'available' }, requestId: 'create-1' } }]);
  });

  it('passes a service refusal through unchanged, with the gateway request id', async () => {
    catalog.on(CatalogPatterns.createCategory, () => {
      throw rpcError(409, 'CATEGORY_NAME_TAKEN', 'A category named dogs exists');
    });
    const response = await gateway.call('POST', '/v1/categories', { headers, json: { name: 'Dogs' } });
    expectError(response, 409, 'CATEGORY_NAME_TAKEN');
    expect(response.body.message).toBe('A category named dogs exists');
  });

  it('lists with a next link while more remain, keeping the filters', async () => {
    catalog.on(CatalogPatterns.listPets, () => ({ items: [rex, { ...rex, id: 9 }], hasMore: true }));
    const response = await gateway.call('GET', '/v1/pets?status=available&status=pending&limit=2', { headers });
    expect(response.status).toBe(200);
    expect(response.headers['link']).toBe('</v1/pets?status=available&status=pending&limit=2&after=9>; rel="next"');
    expect(catalog.received[0].data).toEqual({ status: ['available', 'pending'], limit: 2, after: 0, requestId: response.headers['x-request-id'] });
    catalog.on(CatalogPatterns.listPets, () => ({ items: [rex], hasMore: false }));
    expect((await gateway.call('GET', '/v1/pets', { headers })).headers['link']).toBeUndefined();
  });

  it('pages the inventory by pet id', async () => {
    inventory.on(InventoryPatterns.listInventory, () => ({ items: [{ petId: 12, quantity: 3, status: 'available' }], hasMore: true }));
    const response = await gateway.call('GET', '/v1/store/inventory?after=11&limit=1', { headers });
    expect(response.headers['link']).toBe('</v1/store/inventory?limit=1&after=12>; rel="next"');
  });

  it('answers 204 without a body on delete', async () => {
    catalog.on(CatalogPatterns.deletePet, () => undefined);
    const response = await gateway.call('DELETE', '/v1/pets/7', { headers });
    expect(response.status).toBe(204);
    expect(response.text).toBe('');
  });

  it('passes the idempotency key scoped to the API key, with the canonical body, and marks a replay', async () => {
    const order = { id: 5, petId: 7, quantity: 2, status: 'placed', complete: false };
    orders.on(OrdersPatterns.placeOrder, () => ({ order, replayed: true }));
    const response = await gateway.call('POST', '/v1/store/orders', {
      headers: { ...auth(ORDERS), 'idempotency-key': '"k-1"', 'content-type': 'application/json' },
      body: '{ "quantity": 2, "petId": 7 }',
    });
    expect(response.status).toBe(201);
    expect(response.headers['idempotent-replayed']).toBe('true');
    expect(response.body).toEqual(order);
    expect(orders.received[0].data['idempotency']).toEqual({ scope: 'shop', key: 'k-1', fingerprint: '{"petId":7,"quantity":2}' });

    orders.on(OrdersPatterns.placeOrder, () => ({ order, replayed: false }));
    const first = await gateway.call('POST', '/v1/store/orders', { headers: auth(ORDERS), json: { petId: 7, quantity: 2 } });
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(orders.received[1].data['idempotency']).toBeUndefined();
  });

  it('turns an unexpected service failure into a 500 without its text', async () => {
    catalog.on(CatalogPatterns.getCategory, () => {
      throw new Error('relation "category" does not exist at character 15');
    });
    const response = await gateway.call('GET', '/v1/categories/1', { headers });
    expectError(response, 500, 'INTERNAL_ERROR');
    expect(response.text).not.toMatch(/relation|character|at .*\.ts/);
  });
});

describe('GET /v2/pets/{petId}', () => {
  const headers = auth(READER);
  const withCategory = { ...rex, category: { id: 1, name: 'Dogs' } };

  it('adds the inventory entry', async () => {
    catalog.on(CatalogPatterns.getPetDetails, () => withCategory);
    inventory.on(InventoryPatterns.getInventoryItem, () => ({ petId: 7, quantity: 4, status: 'available' }));
    const response = await gateway.call('GET', '/v2/pets/7', { headers });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ ...withCategory, inventory: { quantity: 4, status: 'available' } });
  });

  it('answers inventory: null when the entry does not exist or the service is too slow', async () => {
    catalog.on(CatalogPatterns.getPetDetails, () => withCategory);
    inventory.on(InventoryPatterns.getInventoryItem, () => {
      throw rpcError(404, 'INVENTORY_ITEM_NOT_FOUND', 'No entry');
    });
    expect((await gateway.call('GET', '/v2/pets/7', { headers })).body.inventory).toBeNull();
    inventory.on(InventoryPatterns.getInventoryItem, never);
    // Budgets far apart (750 ms for the inventory, 5 s for any RPC), so a loaded machine cannot
    // blur which of them ended the wait.
    const patient = await startGateway({ upstreamTimeoutMs: 5000 });
    try {
      const started = Date.now();
      const slow = await patient.call('GET', '/v2/pets/7', { headers });
      expect(slow.status).toBe(200);
      expect(slow.body.inventory).toBeNull();
      expect(Date.now() - started).toBeLessThan(2500);
    } finally {
      await patient.close();
    }
  });

  it('answers the catalog refusal', async () => {
    catalog.on(CatalogPatterns.getPetDetails, () => {
      throw rpcError(404, 'PET_NOT_FOUND', 'Pet 7 does not exist');
    });
    inventory.on(InventoryPatterns.getInventoryItem, () => ({ petId: 7, quantity: 4, status: 'available' }));
    expectError(await gateway.call('GET', '/v2/pets/7', { headers }), 404, 'PET_NOT_FOUND');
  });
});

describe('services that are down or slow', () => {
  it('answers 504 when a service does not answer in time', async () => {
    orders.on(OrdersPatterns.getOrder, never);
    const started = Date.now();
    expectError(await gateway.call('GET', '/v1/store/orders/1', { headers: auth(ADMIN) }), 504, 'UPSTREAM_TIMEOUT');
    expect(Date.now() - started).toBeGreaterThanOrEqual(1450);
  });

  it('answers 503 at once when a service is not there, and recovers when it is back', async () => {
    inventory.on(InventoryPatterns.getInventoryItem, () => ({ petId: 1, quantity: 0, status: 'sold' }));
    expect((await gateway.call('GET', '/v1/store/inventory/1', { headers: auth(ADMIN) })).status).toBe(200);
    // A 5 s RPC budget: "at once" then means well before it, however busy the machine is.
    const patient = await startGateway({ upstreamTimeoutMs: 5000 });
    await inventory.stop();
    try {
      const started = Date.now();
      expectError(await patient.call('GET', '/v1/store/inventory/1', { headers: auth(ADMIN) }), 503, 'SERVICE_UNAVAILABLE');
      expect(Date.now() - started).toBeLessThan(2500);
      expectError(await gateway.call('GET', '/v1/store/inventory/1', { headers: auth(ADMIN) }), 503, 'SERVICE_UNAVAILABLE');
    } finally {
      await patient.close();
      await inventory.start();
    }
    inventory.on(InventoryPatterns.getInventoryItem, () => ({ petId: 1, quantity: 0, status: 'sold' }));
    expect((await gateway.call('GET', '/v1/store/inventory/1', { headers: auth(ADMIN) })).status).toBe(200);
  });

  it('is ready only when every service answers its health check', async () => {
    for (const service of [catalog, orders, inventory]) service.on(HealthPatterns.check, () => ({ service: 'x', ready: true }));
    const ready = await gateway.call('GET', '/health/ready');
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({ ready: true, services: { catalog: 'up', orders: 'up', inventory: 'up' } });

    orders.on(HealthPatterns.check, () => ({ service: 'orders', ready: false }));
    inventory.on(HealthPatterns.check, never);
    const notReady = await gateway.call('GET', '/health/ready');
    expectError(notReady, 503, 'SERVICE_UNAVAILABLE');
    expect(notReady.body).toMatchObject({ ready: false, services: { catalog: 'up', orders: 'down', inventory: 'timeout' } });
  });

  it('starts and stays live with no service at all', async () => {
    const port = await closedPort();
    const alone = await startGateway({
      natsSubjectPrefix: 'nobody-serves-here.',
      catalogRpc: { host: '127.0.0.1', port },
      ordersRpc: { host: '127.0.0.1', port },
      inventoryRpc: { host: '127.0.0.1', port },
    });
    try {
      expect((await alone.call('GET', '/health/live')).status).toBe(200);
      const ready = await alone.call('GET', '/health/ready');
      expect(ready.status).toBe(503);
      expect(ready.body.services).toEqual({ catalog: 'unavailable', orders: 'unavailable', inventory: 'unavailable' });
      expectError(await alone.call('POST', '/v1/store/orders', { headers: auth(ADMIN), json: { petId: 1, quantity: 1 } }), 503, 'SERVICE_UNAVAILABLE');
    } finally {
      await alone.app.close();
    }
  });
});

describe('no connection to the transport', () => {
  it('answers 503 SERVICE_UNAVAILABLE when the NATS server (or the TCP address) cannot be reached: nothing was sent', async () => {
    const port = await closedPort();
    const cut = await startGateway({
      natsServers: [`nats://127.0.0.1:${port}`],
      catalogRpc: { host: '127.0.0.1', port },
      ordersRpc: { host: '127.0.0.1', port },
      inventoryRpc: { host: '127.0.0.1', port },
    });
    try {
      expectError(await cut.call('GET', '/v1/categories/1', { headers: auth(ADMIN) }), 503, 'SERVICE_UNAVAILABLE');
      expectError(await cut.call('POST', '/v1/store/orders', { headers: auth(ADMIN), json: { petId: 1, quantity: 1 } }), 503, 'SERVICE_UNAVAILABLE');
    } finally {
      await cut.app.close();
    }
  });
});

describe('the OpenAPI document', () => {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  let document: any;
  beforeAll(async () => {
    document = (await gateway.call('GET', '/openapi.json')).body;
  });

  const operations = () =>
    Object.entries(document.paths as Record<string, Record<string, Record<string, unknown>>>).flatMap(([path, item]) =>
      Object.entries(item).map(([method, operation]) => ({ path, method: method.toUpperCase(), operation })),
    );

  it('describes exactly the /v1 and /v2 routes the gateway serves', () => {
    const served = gateway.routes
      .filter((route) => /^\/v[12]\//.test(route.url) && route.method !== 'HEAD')
      .map((route) => `${route.method} ${route.url.replace(/:(\w+)/g, '{$1}')}`)
      .sort();
    const documented = operations()
      .map(({ method, path }) => `${method} ${path}`)
      .sort();
    expect(documented).toEqual(served);
    expect(documented).toHaveLength(20);
  });

  it('has the title, version, tags and the bearer scheme on every operation', () => {
    expect(document.openapi).toBe('3.0.3');
    expect(document.info).toMatchObject({ title: 'Pet Store API', version: '1.0.0' });
    expect(document.tags.map((tag: { name: string }) => tag.name)).toEqual(['Pets', 'Store']);
    expect(document.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    for (const { operation } of operations()) {
      expect(operation['security']).toEqual([{ bearerAuth: [] }]);
      expect(['Pets', 'Store']).toContain((operation['tags'] as string[])[0]);
    }
  });

  it('gives every operation a unique operationId and error responses with the Error schema', () => {
    const ids = operations().map(({ operation }) => operation['operationId']);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { operation } of operations()) {
      const responses = operation['responses'] as Record<string, { content?: Record<string, { schema: unknown }> }>;
      for (const status of ['400', '401', '403', '429', '500', '503', '504']) {
        expect(responses[status]?.content?.['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' });
      }
    }
  });

  it('documents every error code', () => {
    expect(document.components.schemas.Error.properties.code.enum).toEqual([...ERROR_CODES]);
  });

  it('marks the deprecated and the beta operations', () => {
    const getPet = document.paths['/v1/pets/{petId}'].get;
    expect(getPet).toMatchObject({ deprecated: true, 'x-sunset': '2999-01-01T00:00:00Z' });
    expect(Object.keys(getPet.responses)).toContain('410');
    expect(document.paths['/v2/pets/{petId}'].get['x-stability-level']).toBe('beta');
    expect(document.paths['/v1/store/orders/{orderId}/cancel'].post['x-stability-level']).toBe('beta');
    const marked = operations().filter(({ operation }) => operation['deprecated'] || operation['x-stability-level']);
    expect(marked).toHaveLength(3);
  });

  it('uses nullable for the inventory of PetDetails and resolves every $ref', () => {
    expect(document.components.schemas.PetInventory.nullable).toBe(true);
    const refs = JSON.stringify(document).match(/"\$ref":"[^"]+"/g) ?? [];
    for (const ref of refs) {
      const path = ref.slice(10, -1).replace(/^#\//, '').split('/');
      const target = path.reduce((node: Record<string, unknown> | undefined, key) => node?.[key] as Record<string, unknown> | undefined, document);
      expect({ ref, found: target !== undefined }).toEqual({ ref, found: true });
    }
  });
});
