// The bench's cluster section: the saga on the scaled stack (tools/stack's cluster: three brokers
// of its own, two replicas of every tier, HAProxy in front of the gateways), measured with the
// single-broker figures' own methods (`capacity`, `atRate`) in the same run.
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as pg from 'pg';
import { topicSettingsFromEnv } from '@petstore/kafka';
import { clusterKafka, clusterKafkaAsync, clusterLayout, dropDatabases, ensureNatsAndRedis, REPLICAS, ROOT, runMigrations, startCluster } from '@petstore/stack';
import { BENCH_ENV } from './bench-stack';
import { brokerTicks } from './cluster-brokers';
import { CLUSTER_RATE, CLUSTER_READ_SECONDS, READ_RATE, WARM_JIT_SHARE, WARMUP_MAX_RUNS } from './cluster-settings';
import { rpcServed, type Spread, spreadOf } from './cluster-spread';
import { log, round } from './figures';
import { API_KEY, BENCH_CLUSTER_KAFKA, CLUSTER_FLOOR_REPLICAS, CLUSTER_REPLICAS, ORDER_PETS, SETTINGS, STOCK_PER_PET } from './knobs';
import { atRate, capacity, capacityInRounds, type Capacity } from './measure';
import { pacedLoad } from './paced-load';
import { childrenOf } from './proc-cpu';
import type { WarmupRun } from './results';
import { startSagaFloor } from './saga-floor-process';
import { sagaStages, stackStageSources } from './saga-stages';
import { apiClient, onOnePet, orderRequest, type Target } from './target';

/** `run()`'s result with the share of the brokers' CPU their JIT compilers took meanwhile. */
async function withBrokerJitShare<T>(run: () => Promise<T>): Promise<T & { brokerJitShare: number | null }> {
  const before = brokerTicks();
  const result = await run();
  const after = brokerTicks();
  return { ...result, brokerJitShare: round(Math.max(0, after.jit - before.jit) / Math.max(1, after.all - before.all), 2) };
}

/**
 * Unmeasured capacity runs through `target` until the brokers' JIT compilers take under
 * WARM_JIT_SHARE of their CPU, or WARMUP_MAX_RUNS of them: a broker in service has long been compiled.
 */
async function warmUpOnBrokers(name: string, target: Target): Promise<WarmupRun[]> {
  const runs: WarmupRun[] = [];
  while (runs.length < WARMUP_MAX_RUNS) {
    const run = await unmeasuredRun(`${name} warm-up run ${runs.length + 1}`, target);
    runs.push(run);
    if ((run.brokerJitShare ?? 0) < WARM_JIT_SHARE) break;
  }
  return runs;
}

/** One saga capacity run through `target` that no figure counts: what it decided, and the brokers' JIT share meanwhile. */
async function unmeasuredRun(label: string, target: Target): Promise<WarmupRun> {
  log(`cluster: ${label}`);
  const { decidedPerSecond, brokerJitShare } = await withBrokerJitShare(() => capacity(target));
  return { decidedPerSecond, brokerJitShare };
}

/** 'nats' when the cluster's saga floor takes its orders through fronts that send each over NATS (BENCH_FLOOR_FRONT). */
const FLOOR_FRONT = SETTINGS.FLOOR_FRONT === 'nats' ? ('nats' as const) : undefined;

/** The cluster's own layout: BENCH_CLUSTER_REPLICAS=<n> replicas of every tier instead of its two, to tell what the replicas cost on one host from what the brokers' replication costs. */
function benchClusterLayout(namespace: string) {
  const replicas = CLUSTER_REPLICAS > 0 ? Object.fromEntries(Object.keys(REPLICAS).map((tier) => [tier, CLUSTER_REPLICAS])) : undefined;
  // The harness user: the saga floor's front sends its orders over the cluster's NATS server too (BENCH_FLOOR_FRONT).
  return clusterLayout({ offset: 20_000, databaseSuffix: '_cluster_bench', namespace, kafka: BENCH_CLUSTER_KAFKA, replicas, harness: FLOOR_FRONT !== undefined });
}

/** How many replicas of `tier` the layout runs (`<tier>-<n>`). */
function replicasOf(layout: ReturnType<typeof benchClusterLayout>, tier: string): number {
  return layout.services.filter((name) => name.replace(/-\d+$/, '') === tier).length;
}

/**
 * Starts the scaled stack and the saga floor on the same three brokers with the same topic
 * settings and as many processes of each side as the stack has replicas of each tier, measures
 * saga capacity of both in rounds (with the cluster's RPC spread over the replicas, from its first
 * round) and placed → decided at 250/s of both, then capacity with every order on one pet, and
 * takes it all down.
 */
export async function benchCluster() {
  const namespace = `bench-${randomBytes(4).toString('hex')}.`;
  const layout = benchClusterLayout(namespace);
  log(`cluster: three brokers (${layout.brokers}), ${layout.services.length} service replicas, ${layout.gateways.length} gateways behind HAProxy`);
  // Fresh brokers every run: each run's topics (12 partitions, three replicas) would stay on them,
  // and every follower fetch and consumer fetch walks all the partitions a broker holds. Measured:
  // with six runs' topics the brokers spent 3.3 ms of CPU per order at 250/s, fresh ones 1.9–2.0 ms.
  clusterKafka('reset', BENCH_CLUSTER_KAFKA);
  clusterKafka('start', BENCH_CLUSTER_KAFKA);
  await ensureNatsAndRedis(layout);
  await dropDatabases(layout);
  await runMigrations(layout, BENCH_ENV);
  const output = fs.createWriteStream(path.join(ROOT, 'tmp/bench-cluster.log'));
  let running: Awaited<ReturnType<typeof startCluster>> | undefined;
  const ordersDb = new pg.Pool({ connectionString: layout.envs.orders.DATABASE_URL, max: 2 });
  try {
    running = await startCluster(layout, { output, extraEnv: BENCH_ENV });
    const headers = { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' };
    const call = apiClient(layout.urls.gateway, headers);
    const category = await call('POST', '/v1/categories', { name: 'Bench cluster dogs', description: 'Seeded by the benchmark' });
    const pets: { id: number }[] = [];
    for (let i = 0; i < ORDER_PETS; i += 1) {
      const pet = await call('POST', '/v1/pets', { name: `Bench cluster pet ${i}`, categoryId: category.id });
      await call('PUT', `/v1/store/inventory/${pet.id}`, { quantity: STOCK_PER_PET });
      pets.push(pet);
    }
    let next = 0;
    const balancer = running.balancer();
    const target: Target = {
      url: `${layout.urls.gateway}/v1/store/orders`,
      db: ordersDb,
      table: 'store_order',
      // HAProxy too: every order passes through it, so its CPU is part of an order's.
      processes: { ...childrenOf(running.processes), ...(balancer && { haproxy: balancer }) },
      stages: (since) => sagaStages(layout, stackStageSources(layout, namespace), since),
      request: orderRequest(headers, () => pets[next++ % pets.length].id),
    };
    // The stack's partitions (KAFKA_TOPIC_PARTITIONS, 12 unless told), so that the floor's consumers split their work alike.
    const topics = { partitions: topicSettingsFromEnv().partitions, replicationFactor: 3, minInsyncReplicas: 2 };
    // Reads of a pet (catalog) and of its stock (inventory) through HAProxy: how the gateways spread
    // RPC over the replicas; it also warms every process up before the saga is measured.
    log(`cluster: reads at ${READ_RATE}/s`);
    const beforeReads = await rpcServed(layout);
    const reads: Record<string, { requestsPerSecond: number | null; p50: number | null; p99: number | null; failed: number }> = {};
    for (const [name, url] of [['GET /v1/pets/{id}', `/v1/pets/${pets[0].id}`], ['GET /v1/store/inventory/{id}', `/v1/store/inventory/${pets[0].id}`]]) {
      const read = await pacedLoad({ url: `${layout.urls.gateway}${url}`, method: 'GET', headers: { authorization: headers.authorization }, body: () => '', rate: READ_RATE, durationSeconds: CLUSTER_READ_SECONDS });
      reads[name] = { requestsPerSecond: round(read.requestsPerSecond), p50: round(read.p50), p99: round(read.p99), failed: read.failed };
    }
    const readSpread = spreadOf(beforeReads, await rpcServed(layout));
    const warmup = await warmUpOnBrokers('saga', target);
    // The same job done with plain pg and kafkajs: the floor on the cluster's brokers, topics as the
    // stack's, each side in as many processes as the stack has replicas of a tier (a replica adds a
    // process and no core here, and the floor pays for that as the stack does), each of its runs
    // just before the cluster's of the same kind (capacityInRounds). Each idles while the other runs.
    const floorReplicas = CLUSTER_FLOOR_REPLICAS > 0 ? CLUSTER_FLOOR_REPLICAS : replicasOf(layout, 'orders');
    log(`cluster: saga floor on the same brokers, ${floorReplicas} process(es) of each side${FLOOR_FRONT ? ', behind as many fronts that send each order over NATS' : ''}`);
    const floor = await startSagaFloor(layout, namespace, pets.map((pet) => pet.id), {
      replicas: floorReplicas,
      front: FLOOR_FRONT,
      topics: {
        numPartitions: topics.partitions,
        replicationFactor: topics.replicationFactor,
        configEntries: [{ name: 'min.insync.replicas', value: String(topics.minInsyncReplicas) }],
      },
    });
    let paired;
    try {
      let nextFloorPet = 0;
      const floorTarget = floor.target(() => pets[nextFloorPet++ % pets.length].id);
      // The floor's traffic makes the brokers compile code of their own (a third of their CPU in
      // its first run after the cluster's warm-up), and its first measured run was slower than its
      // second in every run without this (e.g. 768 and 1,169 decided/s).
      const floorWarmup = await warmUpOnBrokers('saga floor', floorTarget);
      // The cluster idled through the floor's warm-up, minutes of it, while the floor's first
      // measured run follows its own warm-up at once: without one more unmeasured run of the
      // cluster here, its first round measured it waking up (in four runs of 2026-12-01 and
      // 2026-12-02: 0.30–0.51 of the floor in round 1, 0.52–0.65 in round 2).
      const rewarm = await unmeasuredRun("saga warm-up run after the floor's", target);
      let rpcSpread: Spread | undefined;
      // The RPC spread over the replicas is read around the first round only.
      const measureCluster = async () => {
        if (rpcSpread) return withBrokerJitShare(() => capacity(target));
        const before = await rpcServed(layout);
        const run = await withBrokerJitShare(() => capacity(target));
        rpcSpread = spreadOf(before, await rpcServed(layout));
        return run;
      };
      const runs = await capacityInRounds(() => withBrokerJitShare(() => capacity(floorTarget)), measureCluster, 'cluster: ');
      log(`cluster: saga floor, then the cluster, at ${CLUSTER_RATE} orders/s`);
      const floorRate = await withBrokerJitShare(() => atRate(floorTarget, CLUSTER_RATE));
      const rate = await withBrokerJitShare(() => atRate(target, CLUSTER_RATE));
      paired = { ...runs, floorReplicas, floorFront: FLOOR_FRONT, floorWarmup, rewarm, capacity: runs.capacity as Capacity, rpcSpread: rpcSpread as Spread, floorRate, rate };
    } finally {
      await floor.stop();
    }
    log('cluster: every order on one pet');
    const onePet = await withBrokerJitShare(() => capacity(onOnePet(target, pets[0].id)));
    return {
      replicas: { services: layout.services as string[], gateways: layout.gateways as string[] },
      topics,
      reads,
      readSpread,
      warmup,
      ...paired,
      onePet,
    };
  } finally {
    await running?.stopAll();
    await ordersDb.end();
    await clusterKafkaAsync('stop', BENCH_CLUSTER_KAFKA).catch(() => undefined);
  }
}
