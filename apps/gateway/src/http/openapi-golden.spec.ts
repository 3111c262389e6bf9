import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CatalogPatterns, InventoryPatterns, OrdersPatterns } from '@petstore/contracts';
import { FakeService } from '../testing/fake-service';
import { startGateway, type GatewayUnderTest } from '../testing/gateway-under-test';

// The document as served, byte for byte: a change of the gateway's framework, of its route
// declarations or of @fastify/swagger must not change what clients and generators read.
// A deliberate change of the document rewrites the file: UPDATE_OPENAPI_GOLDEN=1 npx nx test gateway.
const GOLDEN = join(__dirname, 'openapi.golden.json');

// Nothing is called: the services are never started.
const idle = (patterns: Record<string, { cmd: string }>) => new FakeService(Object.values(patterns));
let gateway: GatewayUnderTest;

beforeAll(async () => {
  gateway = await startGateway({ catalog: idle(CatalogPatterns), orders: idle(OrdersPatterns), inventory: idle(InventoryPatterns) }, { petsV1Sunset: new Date('2027-06-30T23:59:59Z') });
});

afterAll(async () => {
  await gateway?.close();
});

it('serves /openapi.json exactly as the golden file', async () => {
  const response = await gateway.call('GET', '/openapi.json');
  expect(response.status).toBe(200);
  expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
  if (process.env['UPDATE_OPENAPI_GOLDEN'] === '1') writeFileSync(GOLDEN, response.text);
  const served = Buffer.from(response.text, 'utf8');
  const golden = readFileSync(GOLDEN);
  // The document is one line: on a difference, where it starts and what is there.
  const at = served.findIndex((byte, index) => byte !== golden[index]);
  const around = (bytes: Buffer) => (at === -1 ? '' : bytes.subarray(Math.max(0, at - 60), at + 60).toString('utf8'));
  expect({ length: served.length, firstDifference: at, served: around(served) }).toEqual({ length: golden.length, firstDifference: -1, served: around(golden) });
});
