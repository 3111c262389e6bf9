// Orders at a steady rate against a running stack, written as a user of the API would write it:
// plain `fetch`, the development key `npm start` prints, one category, one pet and its stock
// made through the API first. Evenly spaced: order i leaves at start + i/rate, answered or not.
//
//   node scripts/user-load.mjs [rate=250] [seconds=20]
//
// Prints the answers' latency, the machine's idle CPU during the run (from /proc/stat, all
// cores) and, when it can read the orders' database (ORDERS_DATABASE_URL, by default the
// development stack's), placed → decided for the orders it placed.
import * as fs from 'node:fs';
import * as pg from 'pg';
import { percentile } from './figures';
import { requestCount, sendEvenly } from './paced-schedule';
import { apiClient } from './target';

const USAGE = `usage: node scripts/user-load.mjs [rate=250] [seconds=20]
  GATEWAY_URL (http://127.0.0.1:3000), API_KEY (the development key), ORDERS_DATABASE_URL (the development stack's orders database)`;

/** Idle and total jiffies of the whole machine, from the first line of /proc/stat. */
export function machineTimes(procStat: string): { idle: number; total: number } {
  const fields = procStat.split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  return { idle: fields[3] + fields[4], total: fields.slice(0, 8).reduce((sum, value) => sum + value, 0) };
}

const cpuTimes = () => machineTimes(fs.readFileSync('/proc/stat', 'utf8'));
const ms = (value: number | null) => (value === null ? '-' : `${value.toFixed(1)} ms`);

/** Placed → decided of `orderIds`, once all are decided (30 s at most). */
async function decidedOf(ordersDatabase: string, orderIds: number[]): Promise<void> {
  const db = new pg.Client({ connectionString: ordersDatabase });
  try {
    await db.connect();
    const query = `select count(*)::int as placed, count(*) filter (where status = 'placed')::int as open,
                          percentile_cont(array[0.5, 0.99]) within group (order by extract(epoch from updated_at - created_at) * 1000)
                            filter (where status <> 'placed') as latency
                     from store_order where id = any($1::bigint[])`;
    let row: { placed: number; open: number; latency: number[] | null } | undefined;
    for (let attempt = 0; attempt < 60; attempt += 1) {
      [row] = (await db.query(query, [orderIds])).rows;
      if (row?.open === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    const [p50, p99] = row?.latency ?? [null, null];
    console.log(`placed → decided (orders table): p50 ${ms(p50)}, p99 ${ms(p99)}, ${(row?.placed ?? 0) - (row?.open ?? 0)} of ${row?.placed} decided`);
  } catch (error) {
    console.log(`placed → decided not read (${error instanceof Error ? error.message : String(error)})`);
  } finally {
    await db.end().catch(() => undefined);
  }
}

export async function userLoad(...args: string[]): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    console.log(USAGE);
    return 0;
  }
  const rate = Number(args[0] ?? 250);
  const seconds = Number(args[1] ?? 20);
  const gateway = process.env.GATEWAY_URL ?? 'http://127.0.0.1:3000';
  const apiKey = process.env.API_KEY ?? 'dev-key-0123456789';
  const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
  const call = apiClient(gateway, headers);

  const category = await call('POST', '/v1/categories', { name: `Load ${Date.now()}` });
  const pet = await call('POST', '/v1/pets', { name: 'Load pet', categoryId: category.id });
  await call('PUT', `/v1/store/inventory/${pet.id}`, { quantity: rate * seconds * 2 });

  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  const orderIds: number[] = [];
  const placeOrder = async (dueAt: number) => {
    try {
      const response = await fetch(`${gateway}/v1/store/orders`, { method: 'POST', headers, body: JSON.stringify({ petId: pet.id, quantity: 1 }) });
      const order = (await response.json()) as { id: number };
      statuses[response.status] = (statuses[response.status] ?? 0) + 1;
      if (response.ok) orderIds.push(order.id);
    } catch (error) {
      const key = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
      statuses[key] = (statuses[key] ?? 0) + 1;
    }
    latencies.push(performance.now() - dueAt);
  };

  const before = cpuTimes();
  const ownBefore = process.cpuUsage();
  const startedAt = performance.now();
  const sent = await sendEvenly(rate, requestCount(rate, seconds), (_, dueAt) => placeOrder(dueAt));
  const after = cpuTimes();
  await Promise.all(sent);
  const own = process.cpuUsage(ownBefore);
  const elapsedMs = performance.now() - startedAt;

  latencies.sort((a, b) => a - b);
  const idle = (100 * (after.idle - before.idle)) / (after.total - before.total);
  const cores = fs.readFileSync('/proc/cpuinfo', 'utf8').match(/^processor/gm)?.length;
  console.log(`${rate}/s for ${seconds} s: ${latencies.length} sent, answers ${JSON.stringify(statuses)}`);
  console.log(`POST /v1/store/orders answered p50 ${ms(percentile(latencies, 50))}, p99 ${ms(percentile(latencies, 99))}`);
  console.log(`machine idle while sending: ${idle.toFixed(1)} % (of ${cores} cores); this generator used ${((own.user + own.system) / 10 / elapsedMs).toFixed(0)} % of a core`);
  await decidedOf(process.env.ORDERS_DATABASE_URL ?? 'postgres://petstore_orders@127.0.0.1:5432/petstore_orders', orderIds);
  return 0;
}
