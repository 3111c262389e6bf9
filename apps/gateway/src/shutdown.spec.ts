import { CatalogPatterns, HealthPatterns, InventoryPatterns, OrdersPatterns } from '@petstore/contracts';
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Shutdown, stopGracefully } from './shutdown';
import { FakeService } from './testing/fake-service';
import { expectError, startGateway, type GatewayUnderTest } from './testing/gateway-under-test';

// SIGTERM, as `main.ts` handles it: not ready at once, still serving for the delay, then no new
// work, what was taken finishes, and anything still arriving is answered in the Error object.

const ADMIN = 'admin-key-0001';
const rex = { id: 7, name: 'Rex', categoryId: 1, status: 'available' };
const catalog = new FakeService([...Object.values(CatalogPatterns), HealthPatterns.check]);
const orders = new FakeService([...Object.values(OrdersPatterns), HealthPatterns.check]);
const inventory = new FakeService([...Object.values(InventoryPatterns), HealthPatterns.check]);
// Wide enough for a busy machine: the health checks below must come within the delay, and the
// late request after it but before the list's answer.
const LIST_TAKES_MS = 3000;
const SHUTDOWN_DELAY_MS = 1000;

let gateway: GatewayUnderTest;

beforeAll(async () => {
  await Promise.all([catalog.start(), orders.start(), inventory.start()]);
  for (const service of [catalog, orders, inventory]) service.on(HealthPatterns.check, () => ({ ready: true }));
  catalog.on(CatalogPatterns.listPets, async () => {
    await sleep(LIST_TAKES_MS);
    return { items: [rex], hasMore: false };
  });
  gateway = await startGateway({ catalog, orders, inventory }, { apiKeys: [{ name: 'admin', key: ADMIN, scopes: ['*'] }], upstreamTimeoutMs: 5000 });
});

afterAll(async () => {
  await Promise.all([catalog.stop(), orders.stop(), inventory.stop()]);
});

/** The responses that came back on one connection, in order, until the server closed it. */
function parseResponses(data: Buffer): Array<{ status: number; headers: Record<string, string>; body: any }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const responses = [];
  let rest = data;
  while (rest.length > 0) {
    const end = rest.indexOf('\r\n\r\n');
    const [statusLine, ...lines] = rest.subarray(0, end).toString('latin1').split('\r\n');
    const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
    const length = Number(headers['content-length']);
    responses.push({ status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(rest.subarray(end + 4, end + 4 + length).toString('utf8')) });
    rest = rest.subarray(end + 4 + length);
  }
  return responses;
}

it('turns not ready at once, keeps serving for the delay, finishes what it took and answers later requests 503 in the Error object', async () => {
  const list = `GET /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ADMIN}\r\n\r\n`;
  const socket = connect(gateway.port, '127.0.0.1');
  const received: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => received.push(chunk));
  const closed = new Promise((resolve) => socket.on('close', resolve));
  socket.write(list);
  while (catalog.received.length === 0) await sleep(10);

  const stopped = stopGracefully(gateway.nest, { shutdownDelayMs: SHUTDOWN_DELAY_MS, drainTimeoutMs: 5000 });
  const ready = await gateway.call('GET', '/health/ready');
  expectError(ready, 503, 'SERVICE_UNAVAILABLE');
  expect(ready.body).toMatchObject({ ready: false, message: 'Not ready: the gateway is stopping' });
  expect((await gateway.call('GET', '/health/live')).status).toBe(200);

  while (!gateway.nest.get(Shutdown).draining) await sleep(10);
  // The first request on this connection is still with the catalog service.
  socket.write(`${list.slice(0, -2)}X-Request-Id: late-request\r\n\r\n`);
  await stopped;
  await closed;

  const [first, late] = parseResponses(Buffer.concat(received));
  expect({ status: first.status, body: first.body }).toEqual({ status: 200, body: [rex] });
  expectError(late, 503, 'SERVICE_UNAVAILABLE');
  expect(late.headers['x-request-id']).toBe('late-request');
  expect(late.body.message).toBe('The gateway is stopping: send the request again');
  expect(late.headers['connection']).toBe('close');
  expect(catalog.received.filter(({ cmd }) => cmd === CatalogPatterns.listPets.cmd)).toHaveLength(1);
});
