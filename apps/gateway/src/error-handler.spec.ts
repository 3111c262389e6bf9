import { CatalogPatterns, HealthPatterns, InventoryPatterns, OrdersPatterns } from '@petstore/contracts';
import { FakeService } from './testing/fake-service';
import { expectError, startGateway, type GatewayUnderTest } from './testing/gateway-under-test';
import { rawRequest } from './testing/raw-http';

// Nest's error handler and not-found handler replace Fastify's: every code the gateway answers
// itself keeps its status, code and wording, and request targets that are not a path are
// answered in the Error object too, after authentication (API.md §4).

const ADMIN = 'admin-key-0001';
const auth = { authorization: `Bearer ${ADMIN}` };
const json = { 'content-type': 'application/json', ...auth };

const catalog = new FakeService([...Object.values(CatalogPatterns), HealthPatterns.check]);
const orders = new FakeService([...Object.values(OrdersPatterns), HealthPatterns.check]);
const inventory = new FakeService([...Object.values(InventoryPatterns), HealthPatterns.check]);

let gateway: GatewayUnderTest;

beforeAll(async () => {
  await Promise.all([catalog.start(), orders.start(), inventory.start()]);
  gateway = await startGateway({ catalog, orders, inventory }, { apiKeys: [{ name: 'admin', key: ADMIN, scopes: ['*'] }] });
});

afterAll(async () => {
  await gateway?.close();
  await Promise.all([catalog.stop(), orders.stop(), inventory.stop()]);
});

beforeEach(() => {
  catalog.reset();
  catalog.on(CatalogPatterns.listPets, () => ({ items: [], hasMore: false }));
});

describe('the codes the gateway answers itself', () => {
  it('answers a body over 64 KiB 413 PAYLOAD_TOO_LARGE', async () => {
    const response = await gateway.call('POST', '/v1/pets', { body: JSON.stringify({ name: 'x'.repeat(64 * 1024) }), headers: json });
    expectError(response, 413, 'PAYLOAD_TOO_LARGE');
    expect(response.body.message).toBe('The request body is larger than 64 KiB');
    expect(catalog.received).toEqual([]);
  });

  it('answers a body shorter than its Content-Length 400 BAD_REQUEST', async () => {
    // Node's parser waits for the rest of such a body (then 408); Fastify's injection delivers it short.
    const response = await gateway.nest.inject({ method: 'POST', url: '/v1/pets', headers: { ...json, 'content-length': '40' }, payload: '{"name":"Rex","categoryId":1}' });
    expect({ status: response.statusCode, body: response.json() }).toEqual({
      status: 400,
      body: { status: 400, code: 'BAD_REQUEST', message: 'The request body does not match its Content-Length', requestId: response.headers['x-request-id'] },
    });
    expect(catalog.received).toEqual([]);
  });

  it('answers a path no route serves 404 NOT_FOUND', async () => {
    const response = await gateway.call('GET', '/v1/petz', { headers: auth });
    expectError(response, 404, 'NOT_FOUND');
    expect(response.body.message).toBe('There is nothing at /v1/petz');
  });

  it('answers a known path with another method 405 METHOD_NOT_ALLOWED with Allow', async () => {
    const response = await gateway.call('DELETE', '/v1/pets', { headers: auth });
    expectError(response, 405, 'METHOD_NOT_ALLOWED');
    expect(response.body.message).toBe('DELETE is not allowed on /v1/pets');
    expect(response.headers['allow']).toBe('GET, HEAD, POST');
  });

  it('answers a body that is not JSON 400 INVALID_JSON, and a broken field 400 VALIDATION_FAILED', async () => {
    const invalid = await gateway.call('POST', '/v1/pets', { body: '{"name":', headers: json });
    expectError(invalid, 400, 'INVALID_JSON');
    expect(invalid.body.message).toBe('The request body is not valid JSON');
    const broken = await gateway.call('POST', '/v1/pets', { json: { name: 'Rex', categoryId: 0 }, headers: auth });
    expectError(broken, 400, 'VALIDATION_FAILED');
    expect(broken.body.details).toEqual([{ field: 'categoryId', message: 'must be at least 1' }]);
  });
});

describe('request targets that are not a path', () => {
  const send = (target: string, headers = '') => rawRequest(gateway.port, `${target} HTTP/1.1\r\nHost: x\r\n${headers}Connection: close\r\n\r\n`);

  it.each(['OPTIONS *', 'GET *v1/pets', 'GET //v1/pets'])('answers %s 401 without a key, before anything else', async (target) => {
    const response = await send(target);
    expectError(response, 401, 'UNAUTHORIZED');
    expect(response.headers['www-authenticate']).toBe('Bearer');
  });

  it.each([
    ['OPTIONS *', 'There is nothing at *'],
    ['GET *v1/pets', 'There is nothing at *v1/pets'],
    ['GET //v1/pets', 'There is nothing at //v1/pets'],
  ])('answers %s 404 NOT_FOUND with a key, and sends nothing on', async (target, message) => {
    const response = await send(target, `Authorization: Bearer ${ADMIN}\r\n`);
    expectError(response, 404, 'NOT_FOUND');
    expect(response.body.message).toBe(message);
    expect(response.headers['ratelimit']).toBeDefined();
    expect(catalog.received).toEqual([]);
  });
});
