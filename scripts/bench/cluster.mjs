// The bench's cluster section: the saga on the scaled stack (tools/stack/cluster.cjs: three brokers
// of its own, two replicas of every tier, HAProxy in front of the gateways), measured with the
// single-broker figures' own methods (`capacity`, `atRate` of scripts/bench.mjs) in the same run.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import stack from '../../tools/stack/stack.cjs';
import cluster from '../../tools/stack/cluster.cjs';
import pacedLoadModule from './paced-load.cjs';

/** Its own cluster, beside the bench's ports (+20000): nodes on 29192, 29202, 29212. */
export const BENCH_CLUSTER_KAFKA = {
  port: 29192,
  dataDir: path.join(process.env.PETSTORE_CACHE ?? path.join(os.homedir(), '.cache/petstore'), 'kafka-cluster-bench'),
};
const ORDER_PETS = 30;
const STOCK_PER_PET = 1_000_000;
const CLUSTER_RATE = 250;
const READ_RATE = 200;
const READ_SECONDS = 10;

const round = (value, digits = 1) => (value === null || value === undefined ? null : Number(Number(value).toFixed(digits)));

/**
 * `target` with every order on one pet: per-pet ordering puts all of them on one partition of
 * orders.order.v1, which one inventory replica handles, whatever the number of replicas.
 */
export function onOnePet(target, petId) {
  return {
    ...target,
    stages: undefined,
    request: (extraHeaders = {}) => ({ ...target.request(extraHeaders), setupRequest: (request) => ({ ...request, body: JSON.stringify({ petId, quantity: 1 }) }) }),
  };
}

/** RPC requests each replica has served so far, from its own metrics (petstore_rpc_server_duration_seconds_count). */
async function rpcServed(layout) {
  const served = {};
  for (const name of layout.services) {
    const text = await fetch(`${layout.metricsUrlOf(name)}/metrics`).then((r) => r.text(), () => '');
    served[name] = text
      .split('\n')
      .filter((line) => line.startsWith('petstore_rpc_server_duration_seconds_count'))
      .reduce((sum, line) => sum + Number(line.split(' ').pop()), 0);
  }
  return served;
}

/** Each service's RPC requests between two readings, as the share each replica served. */
function spreadOf(before, after) {
  const byTier = {};
  for (const name of Object.keys(after)) {
    const tier = name.split('-')[0];
    (byTier[tier] ??= {})[name] = after[name] - (before[name] ?? 0);
  }
  return Object.fromEntries(
    Object.entries(byTier).map(([tier, counts]) => {
      const total = Object.values(counts).reduce((sum, n) => sum + n, 0);
      return [tier, { total, shares: Object.fromEntries(Object.entries(counts).map(([name, n]) => [name, total ? round(n / total, 2) : null])) }];
    }),
  );
}

/**
 * Starts the scaled stack, measures saga capacity (with the RPC spread over the replicas),
 * placed → decided at 250/s and capacity with every order on one pet, then takes it all down.
 */
export async function benchCluster({ capacity, atRate, extraEnv, log }) {
  const namespace = `bench-${randomBytes(4).toString('hex')}.`;
  const layout = cluster.clusterLayout({ offset: 20_000, databaseSuffix: '_cluster_bench', namespace, kafka: BENCH_CLUSTER_KAFKA });
  log(`cluster: three brokers (${layout.brokers}), ${layout.services.length} service replicas, ${layout.gateways.length} gateways behind HAProxy`);
  cluster.clusterKafka('start', BENCH_CLUSTER_KAFKA);
  await cluster.ensureNatsAndRedis();
  await stack.dropDatabases(layout);
  stack.runMigrations(layout, extraEnv);
  const output = fs.createWriteStream(path.join(stack.ROOT, 'tmp/bench-cluster.log'));
  let running;
  const ordersDb = new pg.Pool({ connectionString: layout.envs.orders.DATABASE_URL, max: 2 });
  try {
    running = await cluster.startCluster(layout, { output, extraEnv });
    const headers = { authorization: `Bearer ${JSON.parse(extraEnv.API_KEYS)[0].key}`, 'content-type': 'application/json' };
    const call = async (method, url, body) => {
      const response = await fetch(`${layout.urls.gateway}${url}`, { method, headers, body: body && JSON.stringify(body) });
      const text = await response.text();
      if (!response.ok) throw new Error(`${method} ${url} → ${response.status} ${text}`);
      return text ? JSON.parse(text) : undefined;
    };
    const category = await call('POST', '/v1/categories', { name: 'Bench cluster dogs', description: 'Seeded by the benchmark' });
    const pets = [];
    for (let i = 0; i < ORDER_PETS; i += 1) {
      const pet = await call('POST', '/v1/pets', { name: `Bench cluster pet ${i}`, categoryId: category.id });
      await call('PUT', `/v1/store/inventory/${pet.id}`, { quantity: STOCK_PER_PET });
      pets.push(pet);
    }
    let next = 0;
    const target = {
      url: `${layout.urls.gateway}/v1/store/orders`,
      db: ordersDb,
      table: 'store_order',
      processes: Object.fromEntries([...running.processes].map(([name, child]) => [name, child])),
      request: (extraHeaders = {}) => ({
        method: 'POST',
        headers: { ...headers, ...extraHeaders },
        setupRequest: (request) => ({ ...request, body: JSON.stringify({ petId: pets[next++ % pets.length].id, quantity: 1 }) }),
      }),
    };
    const results = { replicas: { services: layout.services, gateways: layout.gateways }, topics: { partitions: 12, replicationFactor: 3, minInsyncReplicas: 2 } };
    // Reads of a pet (catalog) and of its stock (inventory) through HAProxy: how the gateways spread
    // RPC over the replicas; it also warms every process up before the saga is measured.
    log(`cluster: reads at ${READ_RATE}/s`);
    const beforeReads = await rpcServed(layout);
    results.reads = {};
    for (const [name, url] of [['GET /v1/pets/{id}', (id) => `/v1/pets/${id}`], ['GET /v1/store/inventory/{id}', (id) => `/v1/store/inventory/${id}`]]) {
      const read = await pacedLoadModule.pacedLoad({
        url: `${layout.urls.gateway}${url(pets[0].id)}`,
        method: 'GET',
        headers: { authorization: headers.authorization },
        body: () => '',
        rate: READ_RATE,
        durationSeconds: READ_SECONDS,
      });
      results.reads[name] = { requestsPerSecond: round(read.requestsPerSecond), p50: round(read.p50), p99: round(read.p99), failed: read.failed };
    }
    results.readSpread = spreadOf(beforeReads, await rpcServed(layout));
    log('cluster: saga capacity');
    const before = await rpcServed(layout);
    results.capacity = await capacity(target);
    results.rpcSpread = spreadOf(before, await rpcServed(layout));
    log(`cluster: saga at ${CLUSTER_RATE} orders/s`);
    results.rate = await atRate(target, CLUSTER_RATE);
    log('cluster: every order on one pet');
    results.onePet = await capacity(onOnePet(target, pets[0].id));
    return results;
  } finally {
    await running?.stopAll();
    await ordersDb.end();
    await cluster.clusterKafkaAsync('stop', BENCH_CLUSTER_KAFKA).catch(() => undefined);
  }
}

/** The cluster section of docs/BENCHMARKS.md, beside the single-broker figures of the same run. */
export function clusterReport(results, { table }) {
  const c = results.cluster;
  if (!c) return [];
  const out = ['', '### Cluster (three brokers, RF 3, min.insync.replicas 2, 12 partitions; two replicas of every service, two gateways behind HAProxy)', ''];
  const row = (name, r) => [name, r.placedPerSecond ?? r.achievedRate, r.decided, `**${r.decidedPerSecond}**`, `**${r.decisionP50}**`, `**${r.decisionP99}**`, r.failed];
  const rows = [];
  if (results.capacity) rows.push(row('single broker, one replica per tier: capacity', results.capacity));
  rows.push(row('cluster: capacity', c.capacity));
  if (results.onePet) rows.push(row('single broker: capacity, every order on one pet', results.onePet));
  rows.push(row('cluster: capacity, every order on one pet', c.onePet));
  const single250 = results.rates?.find((r) => r.offeredRate === CLUSTER_RATE);
  if (single250) rows.push(row(`single broker: ${CLUSTER_RATE} orders/s`, single250));
  rows.push(row(`cluster: ${CLUSTER_RATE} orders/s`, c.rate));
  out.push(...table(['run', 'placed/s', 'decided', 'decided/s', 'placed→decided p50 ms', 'p99 ms', 'failed'], rows));
  if (results.capacity) out.push('', `Cluster / single-broker capacity: **${round(c.capacity.decidedPerSecond / results.capacity.decidedPerSecond, 2)}**.`);
  const spread = (of) => Object.entries(of ?? {}).filter(([, s]) => s.total > 0).map(([tier, s]) => `${tier} ${Object.values(s.shares).join(' / ')} of ${s.total}`).join('; ');
  const reads = Object.entries(c.reads ?? {}).map(([name, r]) => `${name} ${r.requestsPerSecond}/s, p50 ${r.p50} ms, p99 ${r.p99} ms, ${r.failed} failed`);
  out.push('', `Share of RPC requests each replica served, from each replica's own metrics: during reads at ${READ_RATE}/s through HAProxy (${reads.join('; ')}): ${spread(c.readSpread)}; during the saga capacity run: ${spread(c.rpcSpread)}.`);
  return out;
}
