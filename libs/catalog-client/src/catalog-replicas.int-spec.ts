import { CatalogPatterns, type Category, type Page } from '@petstore/contracts';
import { startBuiltService, testDatabaseUrl, testTransport, uniqueNamespace, type BuiltService } from '@petstore/testing';
import { randomUUID } from 'node:crypto';
import { createRpcClient, transportFailureOf, type RpcClient } from '@petstore/rpc';

// What every RPC client of the catalog (the gateway, this lib) relies on: two replicas of the
// catalog, each its own process from its built bundle, sharing one database and one queue group
// on the real NATS server, as in a scaled deployment.
const namespace = uniqueNamespace();
const databaseUrl = testDatabaseUrl('catalog_replicas');
const transport = testTransport('gateway', namespace);

/** How many RPC requests of `pattern` this replica answered, from its own GET /metrics. */
async function answered(replica: BuiltService, pattern: string): Promise<number> {
  const text = await (await fetch(`${replica.httpUrl}/metrics`)).text();
  const counts = [...text.matchAll(/^petstore_rpc_server_duration_seconds_count\{([^}]*)\} (\d+)$/gm)]
    .filter(([, labels]) => labels.includes(`pattern="${pattern}"`))
    .map(([, , count]) => Number(count));
  return counts.reduce((sum, count) => sum + count, 0);
}

describe('RPC over NATS with two replicas of a service', () => {
  jest.setTimeout(120_000);
  let first: BuiltService;
  let second: BuiltService;
  let client: RpcClient;
  const send = <T>(pattern: { cmd: string }, payload: object, timeoutMs = 5000) =>
    client.request<T>(pattern, { requestId: randomUUID(), ...payload }, timeoutMs);
  const categoryCount = async () => Number((await first.sql<{ count: string }>('select count(*) as count from category'))[0].count);

  beforeAll(async () => {
    first = await startBuiltService('catalog', { namespace, databaseUrl });
    second = await startBuiltService('catalog', { namespace, databaseUrl, resetDatabase: false });
    client = createRpcClient(transport, 'catalog', { host: '127.0.0.1', port: 1 }, 'test');
    await client.connect();
  });

  afterAll(async () => {
    await client?.close();
    await first?.stop();
    await second?.stop();
  });

  it('spreads the requests over both, by each replica\'s own request metrics', async () => {
    const before = [await answered(first, 'categories.list'), await answered(second, 'categories.list')];
    const requests = 200;
    for (let sent = 0; sent < requests; sent += 20) {
      await Promise.all(Array.from({ length: 20 }, () => send<Page<Category>>(CatalogPatterns.listCategories, { limit: 1, after: 0 })));
    }
    const counts = [(await answered(first, 'categories.list')) - before[0], (await answered(second, 'categories.list')) - before[1]];
    expect(counts[0] + counts[1]).toBe(requests);
    // The NATS server picks a member of the queue group at random: far from one-sided, whatever the draw.
    expect(Math.min(...counts)).toBeGreaterThan(requests / 5);
  });

  it('loses no request while one replica stops under load', async () => {
    const before = await categoryCount();
    let created = 0;
    const failures: unknown[] = [];
    let loading = true;
    const worker = async (id: number) => {
      for (let i = 0; loading; i += 1) {
        try {
          await send<Category>(CatalogPatterns.createCategory, { category: { name: `c-${id}-${i}` } });
          created += 1;
        } catch (error) {
          failures.push(error);
        }
      }
    };
    const workers = Array.from({ length: 8 }, (_, id) => worker(id));
    await new Promise((resolve) => setTimeout(resolve, 1000));
    // SIGTERM: it leaves the queue group, answers what it took, and exits.
    await first.stop();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    loading = false;
    await Promise.all(workers);

    expect(failures).toEqual([]);
    expect(created).toBeGreaterThan(0);
    // Every answered create is one row, and no row was written without its answer.
    expect((await second.sql<{ count: string }>('select count(*) as count from category'))[0].count).toBe(String(before + created));
  });

  it('takes a stopping replica out of readiness at once, and it serves SHUTDOWN_DELAY_MS more', async () => {
    const third = await startBuiltService('catalog', { namespace, databaseUrl, resetDatabase: false, env: { SHUTDOWN_DELAY_MS: '2000' } });
    const stopped = third.stop();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const readiness = await fetch(`${third.httpUrl}/health/ready`);
    expect(readiness.status).toBe(503);
    expect(await readiness.json()).toMatchObject({ ready: false, stopping: true });
    // Still in the queue group: it takes its share until the delay is over.
    const before = await answered(third, 'categories.list');
    await Promise.all(Array.from({ length: 60 }, () => send(CatalogPatterns.listCategories, { limit: 1, after: 0 })));
    expect(await answered(third, 'categories.list')).toBeGreaterThan(before);
    await stopped;
  });

  it('says "not sent" at once when no replica is there, and nothing is done', async () => {
    await second.stop();
    const started = Date.now();
    const failure = await send(CatalogPatterns.createCategory, { category: { name: 'nobody takes this' } }).catch((error: unknown) => error);
    expect(transportFailureOf(failure)).toBe('not-sent');
    // Well before the 5 s budget, however busy the machine is: no responder, not a timeout.
    expect(Date.now() - started).toBeLessThan(2500);
    // A fresh replica on the same database finds no such row.
    const third = await startBuiltService('catalog', { namespace, databaseUrl, resetDatabase: false });
    try {
      expect(await third.sql('select id from category where name = ?', ['nobody takes this'])).toEqual([]);
    } finally {
      await third.stop();
    }
  });
});
