import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CatalogPatterns, InventoryPatterns, OrdersPatterns } from '@petstore/contracts';
import { FakeService } from '../testing/fake-service';
import { startGateway, type GatewayUnderTest } from '../testing/gateway-under-test';

// The document as served, byte for byte: a change of the gateway's framework, of its route
// declarations or of @fastify/swagger must not change what clients and generators read.
// A deliberate change of the document rewrites the file, and the client's types generated from
// it: UPDATE_OPENAPI_GOLDEN=1 npx nx test gateway.
const GOLDEN = join(__dirname, 'openapi.golden.json');
const WORKSPACE = join(__dirname, '../../../..');
const CLIENT_TYPES = join(WORKSPACE, 'libs/client/src/generated/api.ts');

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

// @petstore/client is typed by openapi-typescript from this document: its committed types must be
// what the document served now generates, so the client cannot drift from the API.
it('has the client typed from the document as served', async () => {
  const response = await gateway.call('GET', '/openapi.json');
  const folder = mkdtempSync(join(tmpdir(), 'petstore-openapi-'));
  try {
    writeFileSync(join(folder, 'openapi.json'), response.text);
    const cli = join(WORKSPACE, 'node_modules/openapi-typescript/bin/cli.js');
    // A default is not a required field: NewPet's `status` may be left out.
    execFileSync(process.execPath, [cli, join(folder, 'openapi.json'), '--default-non-nullable', 'false', '--output', join(folder, 'api.ts')], { stdio: 'pipe' });
    const generated = readFileSync(join(folder, 'api.ts'), 'utf8');
    if (process.env['UPDATE_OPENAPI_GOLDEN'] === '1') writeFileSync(CLIENT_TYPES, generated);
    expect(generated === readFileSync(CLIENT_TYPES, 'utf8')).toBe(true);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});
