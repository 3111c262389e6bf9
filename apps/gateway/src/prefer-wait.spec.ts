import { CatalogPatterns, HealthPatterns, InventoryPatterns, OrdersPatterns } from '@petstore/contracts';
import { FakeService } from './testing/fake-service';
import { expectError, startGateway, type GatewayUnderTest } from './testing/gateway-under-test';

// The gateway's side of `Prefer: wait` (API.md §9): it parses the preference, forwards the
// seconds to the orders service, gives the call that much more time, and says
// `Preference-Applied` exactly when the orders service says it held the answer.

const KEY = 'admin-key-0001';
const headers = { authorization: `Bearer ${KEY}` };
const catalog = new FakeService([...Object.values(CatalogPatterns), HealthPatterns.check]);
const orders = new FakeService([...Object.values(OrdersPatterns), HealthPatterns.check]);
const inventory = new FakeService([...Object.values(InventoryPatterns), HealthPatterns.check]);

const placed = { id: 5, petId: 7, quantity: 1, status: 'placed', complete: false };
const approved = { ...placed, status: 'approved' };
const after = (ms: number, value: unknown) => new Promise((resolve) => setTimeout(() => resolve(value), ms));

let gateway: GatewayUnderTest;

beforeAll(async () => {
  await Promise.all([catalog.start(), orders.start(), inventory.start()]);
  gateway = await startGateway({ catalog, orders, inventory }, { apiKeys: [{ name: 'admin', key: KEY, scopes: ['*'] }], upstreamTimeoutMs: 1000 });
});

afterAll(async () => {
  await gateway?.close();
  await Promise.all([catalog.stop(), orders.stop(), inventory.stop()]);
});

beforeEach(() => orders.reset());

describe('POST /v1/store/orders with Prefer: wait', () => {
  it('forwards the seconds, answers the decided order and says the preference was applied', async () => {
    orders.on(OrdersPatterns.placeOrder, () => ({ order: approved, replayed: false, waitApplied: 3 }));
    const response = await gateway.call('POST', '/v1/store/orders', { headers: { ...headers, prefer: 'respond-async, wait=3' }, json: { petId: 7, quantity: 1 } });
    expect(response.status).toBe(201);
    expect(response.body).toEqual(approved);
    expect(response.headers['preference-applied']).toBe('wait=3');
    expect(orders.received[0].data).toMatchObject({ order: { petId: 7, quantity: 1 }, waitSeconds: 3 });
  });

  it('caps the wait at 10 seconds', async () => {
    orders.on(OrdersPatterns.placeOrder, () => ({ order: placed, replayed: false, waitApplied: 10 }));
    await gateway.call('POST', '/v1/store/orders', { headers: { ...headers, prefer: 'wait=120' }, json: { petId: 7, quantity: 1 } });
    expect(orders.received[0].data['waitSeconds']).toBe(10);
  });

  it.each([undefined, 'wait=0', 'wait=soon', 'respond-async'])('asks for no wait and applies none with Prefer %p', async (prefer) => {
    orders.on(OrdersPatterns.placeOrder, () => ({ order: placed, replayed: false }));
    const response = await gateway.call('POST', '/v1/store/orders', { headers: { ...headers, ...(prefer && { prefer }) }, json: { petId: 7, quantity: 1 } });
    expect(response.status).toBe(201);
    expect(response.headers['preference-applied']).toBeUndefined();
    expect(orders.received[0].data).not.toHaveProperty('waitSeconds');
  });

  it('says nothing when the service did not hold the answer', async () => {
    orders.on(OrdersPatterns.placeOrder, () => ({ order: placed, replayed: false }));
    const response = await gateway.call('POST', '/v1/store/orders', { headers: { ...headers, prefer: 'wait=2' }, json: { petId: 7, quantity: 1 } });
    expect(response.headers['preference-applied']).toBeUndefined();
  });

  it('never says it on a replayed idempotency key', async () => {
    orders.on(OrdersPatterns.placeOrder, () => ({ order: approved, replayed: true, waitApplied: 2 }));
    const response = await gateway.call('POST', '/v1/store/orders', { headers: { ...headers, prefer: 'wait=2', 'idempotency-key': 'k-1' }, json: { petId: 7, quantity: 1 } });
    expect(response.status).toBe(201);
    expect(response.headers['idempotent-replayed']).toBe('true');
    expect(response.headers['preference-applied']).toBeUndefined();
  });

  it('gives the call the wait on top of the upstream timeout', async () => {
    // 2 s: a second past the 1 s budget of an unheld call, a second inside the 3 s of one held for 2 s.
    orders.on(OrdersPatterns.placeOrder, () => after(2000, { order: approved, replayed: false, waitApplied: 2 }));
    const held = await gateway.call('POST', '/v1/store/orders', { headers: { ...headers, prefer: 'wait=2' }, json: { petId: 7, quantity: 1 } });
    expect(held.status).toBe(201);
    const unheld = await gateway.call('POST', '/v1/store/orders', { headers, json: { petId: 7, quantity: 1 } });
    expectError(unheld, 504, 'UPSTREAM_TIMEOUT');
  });
});

describe('GET /v1/store/orders/{orderId} with Prefer: wait', () => {
  it('asks orders.await instead of orders.get and says the preference was applied', async () => {
    orders.on(OrdersPatterns.awaitOrder, () => ({ order: approved, waitApplied: 4 }));
    const response = await gateway.call('GET', '/v1/store/orders/5', { headers: { ...headers, prefer: 'wait=4' } });
    expect(response.status).toBe(200);
    expect(response.body).toEqual(approved);
    expect(response.headers['preference-applied']).toBe('wait=4');
    expect(orders.received).toEqual([{ cmd: 'orders.await', data: { id: '5', waitSeconds: 4, requestId: response.headers['x-request-id'] } }]);
  });

  it('answers the order as it is when the wait was not applied', async () => {
    orders.on(OrdersPatterns.awaitOrder, () => ({ order: placed }));
    const response = await gateway.call('GET', '/v1/store/orders/5', { headers: { ...headers, prefer: 'wait=1' } });
    expect(response.body).toEqual(placed);
    expect(response.headers['preference-applied']).toBeUndefined();
  });

  it.each([undefined, 'wait=0', 'wait=x'])('asks orders.get with Prefer %p', async (prefer) => {
    orders.on(OrdersPatterns.getOrder, () => placed);
    const response = await gateway.call('GET', '/v1/store/orders/5', { headers: { ...headers, ...(prefer && { prefer }) } });
    expect(response.status).toBe(200);
    expect(response.headers['preference-applied']).toBeUndefined();
    expect(orders.received.map(({ cmd }) => cmd)).toEqual(['orders.get']);
  });

  it('gives the call the wait on top of the upstream timeout', async () => {
    // Past the 1 s budget of an unheld call, inside the 3 s of one held for 2 s.
    orders.on(OrdersPatterns.awaitOrder, () => after(2000, { order: approved, waitApplied: 2 }));
    expect((await gateway.call('GET', '/v1/store/orders/5', { headers: { ...headers, prefer: 'wait=2' } })).status).toBe(200);
  });
});
