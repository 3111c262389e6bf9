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

/** Whether a process's command line is one of the bench cluster's brokers (<dataDir>/node-<n>/). */
export const isBenchClusterBroker = (cmdline) => cmdline.includes('kafka.Kafka') && cmdline.includes(`${BENCH_CLUSTER_KAFKA.dataDir}/node-`);

/**
 * The cluster's brokers start with the section, and a new JVM spends its first minutes compiling:
 * measured on a fresh cluster, the C1/C2 compiler threads took 60 % of the brokers' CPU during the
 * first capacity run, which made the brokers half of the cluster's CPU per order. A broker in
 * service has long been compiled, as the single broker of the other sections is; so saga load runs
 * unmeasured until the compilers take under WARM_JIT_SHARE of the brokers' CPU.
 */
const WARM_JIT_SHARE = 0.1;
const WARMUP_MAX_RUNS = 8;
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

/** CPU ticks the bench cluster's brokers have used so far: in all, and in their JIT compiler threads. */
function brokerTicks() {
  const ticks = { all: 0, jit: 0 };
  for (const pid of fs.readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
    try {
      if (!isBenchClusterBroker(fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8'))) continue;
      for (const task of fs.readdirSync(`/proc/${pid}/task`)) {
        const stat = fs.readFileSync(`/proc/${pid}/task/${task}/stat`, 'utf8');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        const used = Number(fields[11]) + Number(fields[12]); // utime + stime
        ticks.all += used;
        if (/^C\d CompilerThre/.test(fs.readFileSync(`/proc/${pid}/task/${task}/comm`, 'utf8'))) ticks.jit += used;
      }
    } catch {
      // the process or thread ended meanwhile
    }
  }
  return ticks;
}

/** `run()`'s result with the share of the brokers' CPU their JIT compilers took meanwhile. */
async function withBrokerJitShare(run) {
  const before = brokerTicks();
  const result = await run();
  const after = brokerTicks();
  return { ...result, brokerJitShare: round(Math.max(0, after.jit - before.jit) / Math.max(1, after.all - before.all), 2) };
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
 * placed → decided at 250/s and capacity with every order on one pet, then the saga floor on the
 * same three brokers with the same topic settings, and takes it all down.
 */
export async function benchCluster({ capacity, atRate, sagaStages, startSagaFloor, extraEnv, log }) {
  const namespace = `bench-${randomBytes(4).toString('hex')}.`;
  // BENCH_CLUSTER_REPLICAS=<n>: n replicas of every tier instead of the cluster's own two, to tell
  // what the replicas cost on one host from what the brokers' replication costs.
  const perTier = Number(process.env.BENCH_CLUSTER_REPLICAS ?? 0);
  const replicas = perTier > 0 ? Object.fromEntries(Object.keys(cluster.REPLICAS).map((tier) => [tier, perTier])) : undefined;
  const layout = cluster.clusterLayout({ offset: 20_000, databaseSuffix: '_cluster_bench', namespace, kafka: BENCH_CLUSTER_KAFKA, replicas });
  log(`cluster: three brokers (${layout.brokers}), ${layout.services.length} service replicas, ${layout.gateways.length} gateways behind HAProxy`);
  // Fresh brokers every run: each run's topics (12 partitions, three replicas) would stay on them,
  // and every follower fetch and consumer fetch walks all the partitions a broker holds. Measured:
  // with six runs' topics the brokers spent 3.3 ms of CPU per order at 250/s, fresh ones 1.9–2.0 ms.
  cluster.clusterKafka('reset', BENCH_CLUSTER_KAFKA);
  cluster.clusterKafka('start', BENCH_CLUSTER_KAFKA);
  await cluster.ensureNatsAndRedis(layout);
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
      stages: (since) => sagaStages(layout, namespace, since),
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
    results.warmup = [];
    while (results.warmup.length < WARMUP_MAX_RUNS) {
      log(`cluster: saga warm-up run ${results.warmup.length + 1}`);
      const run = await withBrokerJitShare(() => capacity(target));
      results.warmup.push({ decidedPerSecond: run.decidedPerSecond, brokerJitShare: run.brokerJitShare });
      if (run.brokerJitShare < WARM_JIT_SHARE) break;
    }
    log('cluster: saga capacity');
    const before = await rpcServed(layout);
    results.capacity = await withBrokerJitShare(() => capacity(target));
    results.rpcSpread = spreadOf(before, await rpcServed(layout));
    log(`cluster: saga at ${CLUSTER_RATE} orders/s`);
    results.rate = await withBrokerJitShare(() => atRate(target, CLUSTER_RATE));
    log('cluster: every order on one pet');
    results.onePet = await withBrokerJitShare(() => capacity(onOnePet(target, pets[0].id)));
    // What replication on these brokers costs any pipeline: the floor's two processes (plain pg and
    // kafkajs) on the cluster's brokers, topics as the stack's. The stack stays up, idle, as in the
    // single-broker floor runs.
    log('cluster: saga floor on the same brokers');
    const floor = await startSagaFloor(layout, namespace, pets.map((pet) => pet.id), {
      numPartitions: results.topics.partitions,
      replicationFactor: results.topics.replicationFactor,
      configEntries: [{ name: 'min.insync.replicas', value: String(results.topics.minInsyncReplicas) }],
    });
    try {
      let nextFloorPet = 0;
      const floorTarget = floor.target(() => pets[nextFloorPet++ % pets.length].id);
      results.floorCapacity = await withBrokerJitShare(() => capacity(floorTarget));
      results.floorRate = await withBrokerJitShare(() => atRate(floorTarget, CLUSTER_RATE));
    } finally {
      await floor.stop();
    }
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
  const perTier = c.replicas.gateways.length;
  const some = (noun) => `${['no', 'one', 'two', 'three', 'four'][perTier] ?? perTier} ${noun}${perTier === 1 ? '' : 's'}`;
  const out = ['', `### Cluster (three brokers, RF 3, min.insync.replicas 2, 12 partitions; ${some('replica')} of every service, ${some('gateway')} behind HAProxy)`, ''];
  const row = (name, r) => [name, r.placedPerSecond ?? r.achievedRate, r.decided, `**${r.decidedPerSecond}**`, `**${r.decisionP50}**`, `**${r.decisionP99}**`, r.failed];
  const single250 = results.rates?.find((r) => r.offeredRate === CLUSTER_RATE);
  const rows = [];
  if (results.capacity) rows.push(row('single broker, one replica per tier: capacity', results.capacity));
  rows.push(row('cluster: capacity', c.capacity));
  if (results.onePet) rows.push(row('single broker: capacity, every order on one pet', results.onePet));
  rows.push(row('cluster: capacity, every order on one pet', c.onePet));
  if (single250) rows.push(row(`single broker: ${CLUSTER_RATE} orders/s`, single250));
  rows.push(row(`cluster: ${CLUSTER_RATE} orders/s`, c.rate));
  if (c.floorCapacity) rows.push(row('saga floor on the cluster\'s brokers: capacity', c.floorCapacity));
  if (c.floorRate) rows.push(row(`saga floor on the cluster's brokers: ${CLUSTER_RATE} orders/s`, c.floorRate));
  out.push(...table(['run', 'placed/s', 'decided', 'decided/s', 'placed→decided p50 ms', 'p99 ms', 'failed'], rows));
  if (results.capacity) out.push('', `Cluster / single-broker capacity: **${round(c.capacity.decidedPerSecond / results.capacity.decidedPerSecond, 2)}**.`);
  if (c.floorCapacity) {
    const ofSingle = results.floorCapacity ? `; the floor on the cluster's brokers / the floor on the single broker: **${round(c.floorCapacity.decidedPerSecond / results.floorCapacity.decidedPerSecond, 2)}**` : '';
    out.push('', `Cluster / the saga floor on the same brokers: **${round(c.capacity.decidedPerSecond / c.floorCapacity.decidedPerSecond, 2)}**${ofSingle}.`);
  }
  if (c.warmup?.length) {
    const runs = c.warmup.map((run) => `${run.decidedPerSecond} decided/s with ${Math.round(run.brokerJitShare * 100)} %`).join(', ');
    const measured = [c.capacity, c.rate, c.onePet].map((run) => `${Math.round((run.brokerJitShare ?? 0) * 100)} %`).join(', ');
    out.push('', `The brokers start with this section, so unmeasured saga capacity runs came first, until their JIT compilers took under ${WARM_JIT_SHARE * 100} % of their CPU or for ${WARMUP_MAX_RUNS} runs at most (decided/s, and the compilers' share of the brokers' CPU): ${runs}. During the three measured cluster runs above (capacity, ${CLUSTER_RATE}/s, one pet): ${measured}.`);
  }
  if (c.rate.stages) {
    const names = Object.keys(c.rate.stages);
    const stageRow = (name, r) => [name, ...names.map((stage) => `${r.stages[stage].p50} / ${r.stages[stage].p90}`)];
    out.push('', `Where placed → decided goes at ${CLUSTER_RATE}/s (p50 / p90 ms of each stage, as in the single-broker section):`, '');
    out.push(...table(['run', ...names], [...(single250?.stages ? [stageRow('single broker', single250)] : []), stageRow('cluster', c.rate)]));
  }
  const cpuRows = [
    ['cluster: capacity', c.capacity],
    [`cluster: ${CLUSTER_RATE}/s`, c.rate],
    ['cluster: one pet', c.onePet],
    ['floor on the cluster\'s brokers: capacity', c.floorCapacity],
    [`floor on the cluster's brokers: ${CLUSTER_RATE}/s`, c.floorRate],
  ].filter(([, r]) => r?.cpuMsPerOrder);
  if (cpuRows.length > 0) {
    // Replicas of one tier summed, so the rows compare with the single-broker figures.
    const byTier = (cpu) => {
      const tiers = {};
      for (const [name, ms] of Object.entries(cpu)) {
        const tier = name.replace(/-\d+$/, '');
        tiers[tier] = round((tiers[tier] ?? 0) + ms, 2);
      }
      return tiers;
    };
    const rows = cpuRows.map(([name, r]) => [name, byTier(r.cpuMsPerOrder)]);
    const parts = [...new Set(rows.flatMap(([, cpu]) => Object.keys(cpu)))];
    const total = (cpu) => round(Object.values(cpu).reduce((sum, ms) => sum + ms, 0), 2);
    out.push('', 'CPU per decided order in the cluster (ms, every process of the machine, the replicas of a tier summed, the three brokers under kafka):', '');
    out.push(...table(['run', ...parts, 'in all'], rows.map(([name, cpu]) => [name, ...parts.map((part) => cpu[part] ?? ''), `**${total(cpu)}**`])));
  }
  const spread = (of) => Object.entries(of ?? {}).filter(([, s]) => s.total > 0).map(([tier, s]) => `${tier} ${Object.values(s.shares).join(' / ')} of ${s.total}`).join('; ');
  const reads = Object.entries(c.reads ?? {}).map(([name, r]) => `${name} ${r.requestsPerSecond}/s, p50 ${r.p50} ms, p99 ${r.p99} ms, ${r.failed} failed`);
  out.push('', `Share of RPC requests each replica served, from each replica's own metrics: during reads at ${READ_RATE}/s through HAProxy (${reads.join('; ')}): ${spread(c.readSpread)}; during the saga capacity run: ${spread(c.rpcSpread)}.`);
  return out;
}
