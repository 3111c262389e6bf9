import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPetstoreClient, PetstoreApiError, type Attempt, type Order } from '@petstore/client';
import { api, eventually, stackState, startExtraGateway, startService, stopService } from '../support/stack';
import { petstore } from '../support/client';
import { uniqueName } from '../support/fixtures';

const WORKSPACE = join(__dirname, '../../../..');

async function all<T>(items: AsyncIterable<T>): Promise<T[]> {
  const found: T[] = [];
  for await (const item of items) found.push(item);
  return found;
}

describe('@petstore/client against the stack', () => {
  it('carries out every operation of the document', async () => {
    const client = petstore();
    const category = await client.createCategory({ name: uniqueName('Client') });
    expect(await client.getCategory(category.id)).toEqual(category);
    const renamed = await client.replaceCategory(category.id, { name: uniqueName('Client renamed'), description: 'by the client' });
    expect(renamed).toMatchObject({ id: category.id, description: 'by the client' });
    expect((await all(client.listCategories({ limit: 100 }))).some((item) => item.id === category.id)).toBe(true);

    const pet = await client.createPet({ name: uniqueName('Rex'), categoryId: category.id });
    expect(await client.getPet(pet.id)).toEqual(pet);
    expect(await client.replacePet(pet.id, { name: pet.name, categoryId: category.id, status: 'pending' })).toMatchObject({ status: 'pending' });
    expect(await client.updatePet(pet.id, { status: 'available' })).toMatchObject({ status: 'available' });
    expect(await all(client.listPets({ categoryId: category.id }))).toEqual([{ ...pet, status: 'available' }]);
    expect(await client.setStock(pet.id, { quantity: 5 })).toMatchObject({ petId: pet.id, quantity: 5 });
    expect(await client.getInventoryItem(pet.id)).toMatchObject({ petId: pet.id, quantity: 5 });
    expect((await all(client.listInventory({ status: ['available'], limit: 100 }))).length).toBeGreaterThan(0);
    expect(await client.getPetDetails(pet.id)).toMatchObject({ id: pet.id, category: { id: category.id } });

    const approved = await client.placeOrder({ petId: pet.id, quantity: 2 }, { wait: 5 });
    expect(approved).toMatchObject({ petId: pet.id, quantity: 2, status: 'approved' });
    expect(await client.getOrder(approved.id)).toEqual(approved);
    expect(await client.fulfilOrder(approved.id)).toMatchObject({ status: 'delivered', complete: true });
    const second = await client.placeOrder({ petId: pet.id, quantity: 1 });
    expect((await client.getOrder(second.id, { wait: 5 })).status).toBe('approved');
    expect(await client.cancelOrder(second.id)).toMatchObject({ status: 'cancelled' });
    expect((await all(client.listOrders({ petId: pet.id }))).map((order) => order.id)).toEqual([approved.id, second.id]);

    await client.deletePet(pet.id);
    await client.deleteCategory(category.id);
    const gone = await client.getCategory(category.id).catch((error: unknown) => error);
    expect(gone).toBeInstanceOf(PetstoreApiError);
    expect(gone).toMatchObject({ status: 404, code: 'CATEGORY_NOT_FOUND', body: { status: 404, code: 'CATEGORY_NOT_FOUND' } });
  });

  it('keeps the key of a placement, answers a repeat with the first order, and refuses another body under it', async () => {
    const client = petstore();
    const category = await client.createCategory({ name: uniqueName('Keys') });
    const pet = await client.createPet({ name: uniqueName('Rex'), categoryId: category.id });
    const first = await client.placeOrder({ petId: pet.id, quantity: 1 }, { idempotencyKey: 'client-key-1' });
    expect(await client.placeOrder({ petId: pet.id, quantity: 1 }, { idempotencyKey: 'client-key-1' })).toMatchObject({ id: first.id });
    await expect(client.placeOrder({ petId: pet.id, quantity: 2 }, { idempotencyKey: 'client-key-1' })).rejects.toMatchObject({ status: 422, code: 'IDEMPOTENCY_KEY_REUSED' });
    expect(await all(client.listOrders({ petId: pet.id }))).toHaveLength(1);
  });

  it('walks a list over several pages by its Link headers', async () => {
    const client = petstore();
    const category = await client.createCategory({ name: uniqueName('Pages') });
    const created = [];
    for (let i = 0; i < 5; i += 1) created.push(await client.createPet({ name: uniqueName('Paged'), categoryId: category.id }));
    const requests: string[] = [];
    const counting = petstore({ onAttempt: (attempt) => requests.push(attempt.operation) });
    expect((await all(counting.listPets({ categoryId: category.id, limit: 2 }))).map((pet) => pet.id)).toEqual(created.map((pet) => pet.id));
    expect(requests).toEqual(['listPets', 'listPets', 'listPets']);
  });

  it('waits as Retry-After says on 429 and then succeeds', async () => {
    const gateway = await startExtraGateway({ RATE_LIMIT_PER_SECOND: '1' });
    try {
      const attempts: Attempt[] = [];
      const client = createPetstoreClient({ baseUrl: gateway.url, apiKey: stackState().apiKey, onAttempt: (attempt) => attempts.push(attempt) });
      const category = await client.createCategory({ name: uniqueName('Limited') });
      // Three at once against a quota of one a second: at least two are refused first, and wait their turn.
      expect(await Promise.all([1, 2, 3].map(() => client.getCategory(category.id)))).toEqual([category, category, category]);
      const reads = attempts.filter((attempt) => attempt.operation === 'getCategory');
      expect(reads.filter((attempt) => attempt.status === 429).length).toBeGreaterThanOrEqual(2);
      expect(reads.filter((attempt) => attempt.status === 429).every((attempt) => attempt.code === 'RATE_LIMITED' && attempt.willRetry)).toBe(true);
      expect(reads.filter((attempt) => attempt.status === 200)).toHaveLength(3);
    } finally {
      await gateway.stop();
    }
  });

  it('places exactly one order, and returns it, when the gateway is killed while the placement is in flight', async () => {
    const state = stackState();
    const setup = petstore();
    const category = await setup.createCategory({ name: uniqueName('Crash') });
    const pet = await setup.createPet({ name: uniqueName('Rex'), categoryId: category.id });
    // Without inventory the order stays `placed`, so `Prefer: wait` holds the answer while the gateway dies.
    await stopService('inventory');
    const attempts: Attempt[] = [];
    let placement: Promise<Order> | undefined;
    try {
      const client = createPetstoreClient({ baseUrl: state.gatewayUrl, apiKey: state.apiKey, retry: { deadlineMs: 90_000 }, onAttempt: (attempt) => attempts.push(attempt) });
      placement = client.placeOrder({ petId: pet.id, quantity: 1 }, { wait: 10 });
      placement.catch(() => undefined);
      await eventually(
        () => api('GET', `/v1/store/orders?petId=${pet.id}`),
        (response) => response.status === 200 && response.body.length === 1,
      );
      await stopService('gateway', 'SIGKILL');
    } finally {
      // The gateway is ready only once its three services answer: inventory first.
      await startService('inventory');
      await startService('gateway');
    }
    const order = await placement;
    const orders = (await api('GET', `/v1/store/orders?petId=${pet.id}`)).body as Order[];
    expect(orders.map((placed) => placed.id)).toEqual([order.id]);
    expect(order).toMatchObject({ petId: pet.id, quantity: 1 });
    // The first attempt was cut after sending, and a later one got the stored answer.
    expect(attempts[0]).toMatchObject({ operation: 'placeOrder', willRetry: true });
    expect(attempts[0].status).toBeUndefined();
    expect(attempts.at(-1)).toMatchObject({ status: 201, willRetry: false });
  }, 120_000);
});

describe('the packed @petstore/client', () => {
  let project: string;

  beforeAll(() => {
    project = mkdtempSync(join(tmpdir(), 'petstore-client-'));
    execFileSync('npx', ['nx', 'build', 'client', '--outputStyle=static'], { cwd: WORKSPACE, stdio: 'pipe', env: { ...process.env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true', NX_TUI: 'false' } });
    const tarball = execFileSync('npm', ['pack', '--silent', '--pack-destination', project], { cwd: join(WORKSPACE, 'dist/libs/client'), encoding: 'utf8' }).trim();
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'a-shop', version: '1.0.0', private: true }));
    // Only what the package declares: its tarball and, from the registry or npm's cache, openapi-fetch.
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', join(project, tarball.split('\n').at(-1) as string)], { cwd: project, stdio: 'pipe' });
  }, 180_000);

  afterAll(() => rmSync(project, { recursive: true, force: true }));

  const placeFrom = (file: string, source: string) => {
    writeFileSync(join(project, file), source);
    const { gatewayUrl, apiKey } = stackState();
    return JSON.parse(execFileSync(process.execPath, [file], { cwd: project, encoding: 'utf8', env: { ...process.env, GATEWAY_URL: gatewayUrl, API_KEY: apiKey } }));
  };

  const program = `
const client = createPetstoreClient({ baseUrl: process.env.GATEWAY_URL, apiKey: process.env.API_KEY });
async function main() {
  const category = await client.createCategory({ name: 'Packed ' + Math.random() });
  const pet = await client.createPet({ name: 'Packed pet', categoryId: category.id });
  const order = await client.placeOrder({ petId: pet.id, quantity: 1 });
  console.log(JSON.stringify({ petId: pet.id, order }));
}
main().catch((error) => { console.error(error); process.exit(1); });
`;

  it.each([
    ['ESM', 'shop.mjs', `import { createPetstoreClient } from '@petstore/client';\n${program}`],
    ['CJS', 'shop.cjs', `const { createPetstoreClient } = require('@petstore/client');\n${program}`],
  ])('places an order from plain Node as %s', async (_kind, file, source) => {
    const { petId, order } = placeFrom(file, source);
    expect(order).toMatchObject({ petId, quantity: 1, status: 'placed' });
    expect((await api('GET', `/v1/store/orders/${order.id}`)).body).toMatchObject({ id: order.id, petId });
  });
});
