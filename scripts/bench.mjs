// `npm run bench`: what the gateway costs on the read path, how many orders the saga decides
// and how fast, beside floors that do the same jobs with nothing but node:http, pg and
// kafkajs, plus `Prefer: wait`, memory, idle CPU and what tracing costs — measured in one run on one machine and
// written to docs/BENCHMARKS.md (raw figures in docs/bench/).
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { Kafka, logLevel } from 'kafkajs';
import pg from 'pg';
import stack from '../tools/stack/stack.cjs';
import rpc from './bench/rpc-load.cjs';
import pacedLoadModule from './bench/paced-load.cjs';
import baselineGateway from './bench/baseline-gateway.cjs';
import otlp from '../tools/stack/otlp-receiver.cjs';
import natsTool from '../tools/stack/nats.cjs';
import redisTool from '../tools/stack/redis.cjs';
import { benchCluster, clusterReport, isBenchClusterBroker, onOnePet } from './bench/cluster.mjs';
import '../libs/kafka/src/request-queue-fix.cjs';

const { pacedLoad } = pacedLoadModule;
const { ROOT, SERVICES, ensurePostgres, ensureKafka, ensureRedis, build, stackLayout, dropDatabases, runMigrations, provisionKafka, startStack } = stack;

const env = (name, fallback) => process.env[name] ?? fallback;
const READ_SECONDS = Number(env('BENCH_READ_SECONDS', 10));
const CAPACITY_SECONDS = Number(env('BENCH_CAPACITY_SECONDS', 20));
const RATE_SECONDS = Number(env('BENCH_RATE_SECONDS', 20));
const RATES = env('BENCH_RATES', '100,250,500,1000').split(',').map(Number);
const WAIT_RATES = env('BENCH_WAIT_RATES', '100,250').split(',').map(Number);
const CONNECTIONS = Number(env('BENCH_CONNECTIONS', 32));
const CAPACITY_CONNECTIONS = Number(env('BENCH_CAPACITY_CONNECTIONS', 64));
const SOAK_MINUTES = Number(env('BENCH_SOAK_MINUTES', 0));
const SOAK_RATE = Number(env('BENCH_SOAK_RATE', 200));
const IDLE_SECONDS = Number(env('BENCH_IDLE_SECONDS', 60));
const SECTIONS = new Set(env('BENCH_ONLY', 'reads,floor,capacity,rates,wait,idle,tracing,security,cluster').split(','));
// BENCH_ONLY=transports: the read path and saga capacity on a stack restarted with each RPC transport, in turn.
const TRANSPORTS = env('BENCH_TRANSPORTS', 'tcp,nats,tcp,nats').split(',');
// BENCH_ONLY=security: the same with the bus's authentication and TLS on, then off, in turn.
const SECURITY = env('BENCH_SECURITY', 'on,off,on,off').split(',');
/** What authentication and TLS on the bus may cost at most: a target the report compares against, never asserts. */
const SECURITY_TARGET = 0.9;
/**
 * The bus with nothing checked, beside the bench's own (+20000): a plaintext broker, a NATS server
 * and a Redis of its own, started with the section and stopped after it. Only this section's
 * processes connect to them, with BUS_SECURITY_OFF_BENCH_ONLY=true, which they require for that.
 */
const UNSECURED_BUS = {
  kafka: { port: 29_092, controllerPort: 29_093, dataDir: path.join(process.env.PETSTORE_CACHE ?? path.join(os.homedir(), '.cache/petstore'), 'kafka-data-bench-plaintext'), plaintext: true },
  natsPort: natsTool.NATS_PORT + 20_001,
  redisPort: redisTool.REDIS_PORT + 20_001,
};
/** The rate limit's Redis of the secured half: the bench cluster's (+20000), which it starts itself anyway. */
const SECURED_REDIS_PORT = redisTool.REDIS_PORT + 20_000;
if (SOAK_MINUTES > 0) SECTIONS.add('soak');
const ORDER_PETS = 30;
const STOCK_PER_PET = 1_000_000;
const API_KEY = `bench-${randomBytes(12).toString('hex')}`;
const FLOOR_PORT = 23_999;
const SAGA_FLOOR_PORT = 23_998;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const round = (value, digits = 1) => (value === null || value === undefined ? null : Number(Number(value).toFixed(digits)));
const log = (message) => console.log(`[bench] ${message}`);

function rssMiB(pid) {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    return round(Number(/VmRSS:\s+(\d+)/.exec(status)[1]) / 1024);
  } catch {
    return null;
  }
}

async function main() {
  await ensurePostgres();
  ensureKafka();
  build();

  const namespace = `bench-${randomBytes(4).toString('hex')}.`;
  const layout = stackLayout({ offset: 20_000, databaseSuffix: '_bench', namespace });
  await deleteBenchTopics(layout);
  const extraEnv = {
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_SECOND: '0',
    API_KEYS: JSON.stringify([{ name: 'bench', key: API_KEY, scopes: ['*'] }]),
  };
  await dropDatabases(layout);
  runMigrations(layout, extraEnv);
  // The services' own output would drown the report; it is kept in tmp/ for a look afterwards.
  fs.mkdirSync(path.join(ROOT, 'tmp'), { recursive: true });
  // BENCH_CPU_PROF=<dir>: every stack process writes a V8 CPU profile there when it stops
  // (summarise with `node scripts/bench/cpu-profile-summary.mjs <dir>`).
  const cpuProfiles = process.env.BENCH_CPU_PROF;
  const nodeArgs = cpuProfiles ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(cpuProfiles)}`] : [];
  const stackOutput = fs.createWriteStream(path.join(ROOT, 'tmp/bench-stack.log'));
  // Replaced by a stack that exports traces for the `tracing` section.
  let running = await startStack(layout, { extraEnv, nodeArgs, output: stackOutput });
  const gateway = layout.urls.gateway;
  const headers = { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' };
  const call = async (method, url, body) => {
    const response = await fetch(`${gateway}${url}`, { method, headers, body: body && JSON.stringify(body) });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${url} → ${response.status} ${text}`);
    return text ? JSON.parse(text) : undefined;
  };
  const ordersDb = new pg.Pool({ connectionString: layout.envs.orders.DATABASE_URL, max: 2 });

  const results = {
    startedAt: new Date().toISOString(),
    settings: { READ_SECONDS, CAPACITY_SECONDS, RATE_SECONDS, RATES, WAIT_RATES, CONNECTIONS, CAPACITY_CONNECTIONS, SOAK_MINUTES, SOAK_RATE },
  };
  const helpers = [];
  try {
    log('seeding');
    const category = await call('POST', '/v1/categories', { name: 'Bench dogs', description: 'Seeded by the benchmark' });
    const pets = [];
    for (let i = 0; i < 200; i += 1) pets.push(await call('POST', '/v1/pets', { name: `Bench pet ${i}`, categoryId: category.id }));
    const orderPets = pets.slice(0, ORDER_PETS);
    for (const pet of orderPets) await call('PUT', `/v1/store/inventory/${pet.id}`, { quantity: STOCK_PER_PET });
    await sleep(2000);
    results.memoryAtRest = Object.fromEntries(Object.entries(running.processes).map(([name, child]) => [name, rssMiB(child.pid)]));
    const peakRss = Object.fromEntries(Object.keys(running.processes).map((name) => [name, 0]));
    const sampler = setInterval(() => {
      for (const [name, child] of Object.entries(running.processes)) peakRss[name] = Math.max(peakRss[name], rssMiB(child.pid) ?? 0);
    }, 250);

    let next = 0;
    const nextPetId = () => orderPets[(next++) % orderPets.length].id;
    const orderRequest = (extraHeaders = {}) => ({
      method: 'POST',
      headers: { ...headers, ...extraHeaders },
      setupRequest: (request) => ({ ...request, body: JSON.stringify({ petId: nextPetId(), quantity: 1 }) }),
    });
    const ours = {
      url: `${gateway}/v1/store/orders`,
      db: ordersDb,
      table: 'store_order',
      request: orderRequest,
      processes: running.processes,
      stages: (since) => sagaStages(layout, namespace, since),
    };

    if (SECTIONS.has('reads')) results.reads = await readPath(layout, category, running.processes, { extraEnv, nodeArgs, output: stackOutput });

    let floor;
    if (SECTIONS.has('floor')) {
      log('saga floor (node:http + pg + kafkajs)');
      floor = await startSagaFloor(layout, namespace, orderPets.map((pet) => pet.id));
      helpers.push(floor);
      const floorTarget = floor.target(nextPetId);
      results.floorCapacity = await capacity(floorTarget);
      results.floorRates = [];
      for (const rate of RATES) results.floorRates.push(await atRate(floorTarget, rate));
      await floor.stop();
    }

    if (SECTIONS.has('capacity')) {
      log('saga capacity');
      results.capacity = await capacity(ours);
    }
    if (SECTIONS.has('cluster')) results.onePet = await capacity(onOnePet(ours, orderPets[0].id));
    if (SECTIONS.has('rates')) {
      results.rates = [];
      for (const rate of RATES) {
        log(`saga at ${rate} orders/s`);
        results.rates.push(await atRate(ours, rate));
      }
    }
    if (SECTIONS.has('wait')) {
      results.wait = [];
      for (const rate of WAIT_RATES) {
        log(`Prefer: wait=5 at ${rate} orders/s`);
        results.wait.push(await withWait(ours, rate));
      }
    }
    if (SECTIONS.has('soak')) {
      log(`soak: ${SOAK_MINUTES} min at ${SOAK_RATE} orders/s`);
      results.soak = await soak(ours, layout);
    }
    clearInterval(sampler);
    results.memoryUnderWriteLoad = peakRss;

    log('checking stock against approved orders');
    results.stockCheck = await checkStock(call, ordersDb, orderPets);

    if (SECTIONS.has('idle')) {
      log(`idle CPU over ${IDLE_SECONDS} s`);
      await sleep(10_000);
      results.idleCpu = await idleCpu(running.processes, IDLE_SECONDS);
    }
    if (SECTIONS.has('tracing')) {
      log('saga capacity with tracing off, then on');
      results.tracing = await tracingCost(ours);
    }
    if (SECTIONS.has('transports')) {
      results.transports = [];
      for (const transport of TRANSPORTS) {
        log(`RPC over ${transport}: read path and saga capacity`);
        // The TCP transport has no authentication: it starts only when told it serves a benchmark.
        const transportLayout = withEnv(layout, () => ({ RPC_TRANSPORT: transport, RPC_TCP_BENCH_ONLY: 'true' }));
        await restartStack(transportLayout);
        results.transports.push({ transport, ...(await readsAndCapacity(transportLayout, category, ours)) });
      }
    }
    if (SECTIONS.has('security')) results.security = await securityCost(category, ours);
  } finally {
    for (const helper of helpers) await helper.stop().catch(() => undefined);
    await ordersDb.end();
    await running.stop();
    await deleteBenchTopics(layout);
  }
  if (SECTIONS.has('cluster')) results.cluster = await benchCluster({ capacity, atRate, sagaStages, startSagaFloor, extraEnv, log });
  results.environment = await environment();
  writeReport(results);

  /**
   * Closed loop through `target` as fast as it takes orders; decisions read from its database
   * afterwards, and the CPU each part of the machine spent per decided order.
   */
  async function capacity(target) {
    return withCpuPerOrder(target.processes, async () => {
      const since = await dbNow(target.db);
      const placement = await cannon({
        url: target.url,
        duration: CAPACITY_SECONDS,
        connections: CAPACITY_CONNECTIONS,
        requests: [target.request()],
      });
      const decided = await decisions(target, since);
      return { ...decided, placedPerSecond: placement.requestsPerSecond, placementP99: placement.p99, failed: placement.failed };
    });
  }

  /**
   * Capacity without tracing, then the same on a stack restarted to export every span over
   * OTLP/HTTP (SDK defaults: batches of 512, 5 s delay, queue 2048) to a receiver in this
   * process that parses and counts them, as a local collector would: the ratio is what tracing costs.
   */
  async function tracingCost(target) {
    const off = await capacity(target);
    const receiver = await otlp.startOtlpReceiver({ keepSpans: false });
    try {
      await restartStack(layout, { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
      const on = await capacity({ ...target, processes: running.processes });
      await sleep(6_000); // the last batches leave on the exporters' schedule
      return { off, on, spansReceived: receiver.count(), spansPerOrder: round(receiver.count() / Math.max(1, on.placed), 1), onToOff: round(on.decidedPerSecond / off.decidedPerSecond, 2) };
    } finally {
      await receiver.close();
    }
  }

  /** The stack stopped and started again on `stackLayout`, with `moreEnv` for every process: the sections that compare one stack run differently. */
  async function restartStack(stackLayout, moreEnv = {}) {
    await running.stop();
    running = await startStack(stackLayout, { extraEnv: { ...extraEnv, ...moreEnv }, nodeArgs, output: stackOutput });
  }

  /** The read path of `category` and the saga's capacity through `target`, on the running stack, laid out as `stackLayout`. */
  async function readsAndCapacity(stackLayout, category, target) {
    const reads = await readPath(stackLayout, category, running.processes);
    return { reads, capacity: await capacity({ ...target, processes: running.processes }) };
  }

  /**
   * The read path and saga capacity with the bus's authentication and TLS on (the stack as it
   * always runs: Kafka SASL_SSL/SCRAM with ACLs, NATS with TLS and a user per process, the rate
   * limit's Redis with TLS and an ACL user), then off (a plaintext broker, a NATS server and a
   * Redis that check nothing), in turn (BENCH_SECURITY), so that drift shows; both halves count
   * the rate limit in Redis (a quota no run reaches), as the scaled stack does. The first start of
   * each half gets an unmeasured capacity run: the plaintext broker is new, its JIT still cold.
   */
  async function securityCost(category, target) {
    const securedRedis = redisTool.redisServer(SECURED_REDIS_PORT);
    const unsecuredRedis = redisTool.redisServer(UNSECURED_BUS.redisPort, { unsecured: true });
    const gatewayWith = (redis) => (app) => (app === 'gateway' ? { ...redis.gatewayEnv, RATE_LIMIT_PER_SECOND: '1000000' } : {});
    const layouts = {
      on: withEnv(layout, gatewayWith(securedRedis)),
      off: withEnv(
        stackLayout({ offset: 20_000, databaseSuffix: '_bench', namespace, kafkaBrokers: `127.0.0.1:${UNSECURED_BUS.kafka.port}`, natsPort: UNSECURED_BUS.natsPort, unsecured: true }),
        gatewayWith(unsecuredRedis),
      ),
    };
    log('bus security: starting the unsecured broker, NATS server and Redis');
    // A fresh broker each run, as the cluster section's: old runs' topics would slow its fetches.
    stack.kafka('reset', UNSECURED_BUS.kafka);
    stack.kafka('start', UNSECURED_BUS.kafka);
    const runs = [];
    try {
      await ensureRedis(securedRedis);
      await ensureRedis(unsecuredRedis);
      provisionKafka(layouts.off, extraEnv);
      const warmed = new Set();
      for (const mode of SECURITY) {
        log(`bus security ${mode}: read path and saga capacity`);
        await restartStack(layouts[mode]);
        if (!warmed.has(mode)) {
          warmed.add(mode);
          await capacity({ ...target, processes: running.processes });
        }
        runs.push({ mode, ...(await readsAndCapacity(layouts[mode], category, target)) });
      }
    } finally {
      // Nothing of the unsecured bus outlives the section.
      await running.stop();
      stack.kafka('stop', UNSECURED_BUS.kafka);
      await natsTool.stopNatsServer(layouts.off.nats);
      await redisTool.stopRedisServer(unsecuredRedis);
    }
    return { runs, onToOff: securityRatios(runs), target: SECURITY_TARGET };
  }

  /** Open loop at `rate` orders/s; placed → decided as recorded by the database (no polling load). */
  async function atRate(target, rate, seconds = RATE_SECONDS) {
    return withCpuPerOrder(target.processes, async () => {
      const since = await dbNow(target.db);
      const placement = await paced(target, { rate, seconds });
      const decided = await decisions(target, since);
      return {
        ...(target.stages && { stages: await target.stages(since) }),
        offeredRate: rate,
        achievedRate: placement.requestsPerSecond,
        created: placement.ok,
        failed: placement.failed,
        placementP50: placement.p50,
        placementP99: placement.p99,
        ...decided,
      };
    });
  }

  /**
   * What a client sees with `Prefer: wait=5`: the 201 arrives with the decision. Placed →
   * decided of the same orders, from the database, tells the held answer's release apart.
   */
  async function withWait(target, rate) {
    let decidedAnswers = 0;
    let applied = 0;
    let answers = 0;
    const onResponse = (status, body, responseHeaders) => {
      answers += 1;
      if (!/"status":"placed"/.test(body)) decidedAnswers += 1;
      if (responseHeaders['preference-applied'] !== undefined) applied += 1;
    };
    return withCpuPerOrder(target.processes, async () => {
      const since = await dbNow(target.db);
      const result = await paced(target, { rate, seconds: RATE_SECONDS, extraHeaders: { prefer: 'wait=5' }, onResponse });
      const decided = await decisions(target, since);
      return { offeredRate: rate, achievedRate: result.requestsPerSecond, p50: result.p50, p99: result.p99, answers, decidedAnswers, applied, failed: result.failed, ...decided };
    });
  }

  /** A steady rate for minutes: latency per minute, and the messaging tables at the start and the end. */
  async function soak(target, stackLayout) {
    const tablesAtStart = await messagingTables(stackLayout);
    const minutes = [];
    for (let minute = 1; minute <= SOAK_MINUTES; minute += 1) {
      const result = await atRate(target, SOAK_RATE, 60);
      minutes.push({ minute, ...result });
      log(`soak minute ${minute}: p50 ${result.decisionP50} ms, p99 ${result.decisionP99} ms`);
    }
    const tablesAtEnd = await messagingTables(stackLayout);
    return { rate: SOAK_RATE, minutes, tablesAtStart, tablesAtEnd };
  }
}

/** `stackLayout` with `more(app)`'s variables added to each process's. */
function withEnv(stackLayout, more) {
  return { ...stackLayout, envs: Object.fromEntries(Object.entries(stackLayout.envs).map(([app, e]) => [app, { ...e, ...more(app) }])) };
}

/**
 * On / off of the security section's figures: the i-th "on" run against the i-th "off" one (runs
 * next to each other), and their mean. Saga decided/s; per read query, through the gateway and
 * straight to the catalog.
 */
function securityRatios(runs) {
  const on = runs.filter((r) => r.mode === 'on');
  const off = runs.filter((r) => r.mode === 'off');
  const pairs = on.slice(0, off.length).map((r, i) => [r, off[i]]);
  const ratio = (figure) => {
    const each = pairs.map(([a, b]) => round(figure(a) / figure(b), 2));
    return { each, mean: each.length > 0 ? round(each.reduce((sum, x) => sum + x, 0) / each.length, 2) : null };
  };
  const queries = on[0]?.reads.map((r) => r.name) ?? [];
  const read = (name, via) => (run) => run.reads.find((r) => r.name === name)[via].requestsPerSecond;
  return {
    sagaDecidedPerSecond: ratio((run) => run.capacity.decidedPerSecond),
    reads: Object.fromEntries(queries.map((name) => [name, { gateway: ratio(read(name, 'gateway')), direct: ratio(read(name, 'direct')) }])),
  };
}

async function readPath(layout, category, processes, baselineOptions) {
  log('read path');
  const baseline = await baselineGateway.startBaselineGateway(layout, baselineOptions);
  const floor = fork(path.join(ROOT, 'scripts/bench/floor-server.cjs'), {
    env: { ...process.env, PORT: String(FLOOR_PORT), DATABASE_URL: layout.envs.catalog.DATABASE_URL },
  });
  await new Promise((resolve) => floor.once('message', resolve));
  const headers = { authorization: `Bearer ${API_KEY}` };
  const reads = [
    { name: 'GET /v1/categories/{id}', gateway: `/v1/categories/${category.id}`, floor: `/categories/${category.id}`,
      pattern: { cmd: 'categories.get' }, payload: () => ({ requestId: 'bench', id: String(category.id) }) },
    { name: 'GET /v1/pets?limit=20', gateway: '/v1/pets?limit=20', floor: '/pets?limit=20',
      pattern: { cmd: 'pets.list' }, payload: () => ({ requestId: 'bench', limit: 20, after: 0 }) },
  ];
  const results = [];
  try {
    for (const read of reads) {
      const viaGateway = await cannon({ url: `${layout.urls.gateway}${read.gateway}`, headers, warmup: true, cpuOf: processes });
      const viaBaseline = baseline && (await cannon({ url: `${baseline.url}${read.gateway}`, headers, warmup: true }));
      const direct = await rpc.rpcLoad({
        env: layout.envs.catalog, callerEnv: layout.envs.gateway, service: 'catalog', pattern: read.pattern, payload: read.payload,
        connections: CONNECTIONS, durationSeconds: READ_SECONDS,
      });
      const floorRun = await cannon({ url: `http://127.0.0.1:${FLOOR_PORT}${read.floor}`, warmup: true, cpuOf: { floor } });
      results.push({
        name: read.name,
        transport: (layout.envs.catalog.RPC_TRANSPORT ?? 'nats').toUpperCase(),
        gateway: viaGateway,
        direct: { requestsPerSecond: round(direct.requestsPerSecond), p50: round(direct.p50, 2), p99: round(direct.p99, 2), errors: direct.errors },
        floor: floorRun,
        gatewayToDirect: round(viaGateway.requestsPerSecond / direct.requestsPerSecond, 2),
        gatewayToFloor: round(viaGateway.requestsPerSecond / floorRun.requestsPerSecond, 2),
        ...(viaBaseline && { baseline: { build: baseline.main, ...viaBaseline }, baselineToFloor: round(viaBaseline.requestsPerSecond / floorRun.requestsPerSecond, 2) }),
      });
    }
  } finally {
    floor.kill('SIGTERM');
    await baseline?.stop();
  }
  return results;
}

/**
 * The bench's own client, as the administrator: it creates and deletes the topics of its
 * namespaces and reads the stack's. The stack's processes are each their own principal.
 */
function benchKafka(layout, clientId) {
  return new Kafka({ clientId, brokers: layout.envs.orders.KAFKA_BROKERS.split(','), logLevel: logLevel.ERROR, ...stack.kafkaClientAuth(layout.kafkaSecrets, 'admin') });
}

/**
 * Deletes the topics of bench runs (`bench-<8 hex>.` namespaces) from the everyday broker, this
 * run's at its end and any a failed run left. Left there, every run would add ~90 partitions, and
 * a broker's fetches walk all the partitions it holds, so each run would measure a slower broker
 * than the one before.
 */
async function deleteBenchTopics(layout) {
  const admin = benchKafka(layout, 'bench-cleanup').admin();
  await admin.connect();
  try {
    const topics = (await admin.listTopics()).filter((topic) => /^bench-[0-9a-f]{8}\./.test(topic));
    if (topics.length > 0) await admin.deleteTopics({ topics, timeout: 30_000 });
  } finally {
    await admin.disconnect();
  }
}

/**
 * The two processes of the saga floor on their own databases and topics (on `layout`'s brokers,
 * with `topics`' partitions and replication), with the order pets stocked.
 */
async function startSagaFloor(layout, namespace, petIds, topics = { numPartitions: 3, replicationFactor: 1 }) {
  // The floor has no roles of its own: its databases belong to the owner role, as the migrations do.
  const base = new URL(layout.envs.orders.MIGRATION_DATABASE_URL);
  const databaseUrl = (name) => Object.assign(new URL(base), { pathname: `/${name}` }).toString();
  const urls = { orders: databaseUrl('petstore_floor_orders_bench'), inventory: databaseUrl('petstore_floor_inventory_bench') };
  const admin = new pg.Client({ connectionString: databaseUrl('postgres') });
  await admin.connect();
  for (const url of Object.values(urls)) {
    const name = new URL(url).pathname.slice(1);
    await admin.query(`drop database if exists "${name}" with (force)`);
    await admin.query(`create database "${name}"`);
  }
  await admin.end();
  const kafka = benchKafka(layout, 'bench-floor');
  const kafkaAdmin = kafka.admin();
  await kafkaAdmin.connect();
  const names = ['floor.orders', 'floor.stock'].map((topic) => `${namespace}${topic}`);
  await kafkaAdmin.createTopics({ waitForLeaders: false, topics: names.map((topic) => ({ topic, ...topics })) });
  // A cluster's brokers learn of new topics one after the other, so (as libs/kafka's
  // provisionTopics does) several answers in a row must show every partition led.
  const deadline = Date.now() + 15_000;
  for (let ledAnswers = 0; ledAnswers < 3; ) {
    const metadata = await kafkaAdmin.fetchTopicMetadata({ topics: names }).catch(() => undefined);
    const led = metadata?.topics.every((topic) => topic.partitions.length > 0 && topic.partitions.every((partition) => partition.leader >= 0));
    ledAnswers = led ? ledAnswers + 1 : 0;
    if (Date.now() > deadline) throw new Error(`the floor's topics have no leaders: ${names.join(', ')}`);
    await sleep(50);
  }
  await kafkaAdmin.disconnect();
  const start = (role) => {
    const child = fork(path.join(ROOT, 'scripts/bench/saga-floor.cjs'), [role], {
      env: {
        ...process.env,
        ...stack.kafkaCredentials(layout.kafkaSecrets, 'admin'),
        DATABASE_URL: urls[role],
        KAFKA_BROKERS: layout.envs.orders.KAFKA_BROKERS,
        NAMESPACE: namespace,
        PORT: String(SAGA_FLOOR_PORT),
      },
    });
    return { child, ready: new Promise((resolve, reject) => { child.once('message', resolve); child.once('exit', (code) => reject(new Error(`saga floor ${role} exited (${code})`))); }) };
  };
  const inventory = start('inventory');
  await inventory.ready;
  const stock = new pg.Client({ connectionString: urls.inventory });
  await stock.connect();
  await stock.query('insert into floor_stock (pet_id, quantity) select unnest($1::bigint[]), $2', [petIds, STOCK_PER_PET]);
  await stock.end();
  const orders = start('orders');
  await orders.ready;
  const ordersDb = new pg.Pool({ connectionString: urls.orders, max: 2 });
  const processes = { 'floor orders': orders.child, 'floor inventory': inventory.child };
  return {
    ordersDb,
    processes,
    /** The floor as a load target of `capacity` and `atRate`, placing orders for `nextPetId()`. */
    target: (nextPetId) => ({
      url: `http://127.0.0.1:${SAGA_FLOOR_PORT}/orders`,
      db: ordersDb,
      table: 'floor_order',
      processes,
      request: () => ({
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        setupRequest: (request) => ({ ...request, body: JSON.stringify({ petId: nextPetId(), quantity: 1 }) }),
      }),
    }),
    async stop() {
      for (const side of [orders, inventory]) side.child.kill('SIGTERM');
      await ordersDb.end().catch(() => undefined);
    },
  };
}

async function dbNow(db) {
  const { rows } = await db.query('select now() as now');
  return rows[0].now;
}

/**
 * Orders placed since `since`, once every one is decided (a minute at most): how many, the
 * rate at which they were decided (first placed → last decided) and placed → decided latency.
 */
async function decisions({ db, table }, since) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const { rows } = await db.query(`select count(*)::int as open from ${table} where created_at >= $1 and status = 'placed'`, [since]);
    if (rows[0].open === 0 || Date.now() > deadline) break;
    await sleep(250);
  }
  const { rows } = await db.query(
    `select count(*)::int as placed,
            count(*) filter (where status <> 'placed')::int as decided,
            extract(epoch from max(updated_at) filter (where status <> 'placed') - min(created_at))::float8 as span,
            percentile_cont(array[0.5, 0.99]) within group (order by extract(epoch from updated_at - created_at) * 1000)
              filter (where status <> 'placed') as latency
       from ${table} where created_at >= $1`,
    [since],
  );
  const row = rows[0];
  return {
    placed: row.placed,
    decided: row.decided,
    undecided: row.placed - row.decided,
    decidedPerSecond: row.span > 0 ? round(row.decided / row.span) : null,
    decisionP50: round(row.latency?.[0]),
    decisionP99: round(row.latency?.[1]),
  };
}

/**
 * Where placed → decided goes, per order, from what the stack records anyway (no tracing):
 * the order's insert, OrderPlaced on Kafka (the relay's send time), the reservation's insert in
 * inventory, its answer on Kafka, the decision's update. Database times are transaction starts.
 */
async function sagaStages(layout, namespace, since) {
  const query = async (url, sql) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return (await client.query(sql, [since])).rows;
    } finally {
      await client.end();
    }
  };
  const epochMs = (column) => `extract(epoch from ${column}) * 1000 as ${column.replace(/^.*\./, '')}`;
  const orders = await query(layout.envs.orders.DATABASE_URL, `select id, ${epochMs('created_at')}, ${epochMs('updated_at')} from store_order where created_at >= $1 and status <> 'placed'`);
  const reserved = new Map((await query(layout.envs.inventory.DATABASE_URL, `select order_id, ${epochMs('created_at')} from reservation where created_at >= $1`)).map((r) => [String(r.order_id), r.created_at]));
  const sent = await sentAt(layout, namespace, new Date(since).getTime() - 1000, ['orders.order.v1', 'inventory.stock.v1']);
  const gaps = { 'placed → OrderPlaced sent': [], '→ reservation': [], '→ stock event sent': [], '→ decided': [] };
  for (const order of orders) {
    const id = String(order.id);
    const times = [order.created_at, sent.get(`OrderPlaced ${id}`), reserved.get(id), sent.get(`stock ${id}`), order.updated_at];
    if (times.some((time) => time === undefined)) continue;
    Object.values(gaps).forEach((list, i) => list.push(times[i + 1] - times[i]));
  }
  return Object.fromEntries(
    Object.entries(gaps).map(([name, list]) => {
      list.sort((a, b) => a - b);
      return [name, { p50: round(rpc.percentile(list, 50)), p90: round(rpc.percentile(list, 90)) }];
    }),
  );
}

/** When the relays sent each order's events (the Kafka message timestamp, set by the producer), from `fromMs` on. */
async function sentAt(layout, namespace, fromMs, topics) {
  const kafka = benchKafka(layout, 'bench-stages');
  const admin = kafka.admin();
  await admin.connect();
  const ranges = [];
  for (const topic of topics.map((name) => `${namespace}${name}`)) {
    const ends = await admin.fetchTopicOffsets(topic);
    const starts = await admin.fetchTopicOffsetsByTimestamp(topic, fromMs);
    for (const { partition, high } of ends) ranges.push({ topic, partition, from: starts.find((s) => s.partition === partition).offset, to: high });
  }
  await admin.disconnect();
  const sent = new Map();
  const consumer = kafka.consumer({ groupId: `bench-stages-${randomBytes(4).toString('hex')}` });
  await consumer.connect();
  await consumer.subscribe({ topics: [...new Set(ranges.map((r) => r.topic))] });
  let left = ranges.filter((r) => Number(r.from) < Number(r.to)).length;
  let finished;
  const done = new Promise((resolve) => (finished = resolve));
  if (left === 0) finished();
  await consumer.run({
    eachBatch: async ({ batch }) => {
      const range = ranges.find((r) => r.topic === batch.topic && r.partition === batch.partition);
      for (const message of batch.messages) {
        if (Number(message.offset) >= Number(range.to)) break;
        const event = JSON.parse(message.value.toString());
        const kind = event.type === 'OrderPlaced' ? 'OrderPlaced' : /^Stock(Reserved|ReservationRejected)$/.test(event.type) ? 'stock' : null;
        if (kind && event.payload.orderId !== undefined) sent.set(`${kind} ${event.payload.orderId}`, Number(message.timestamp));
        if (Number(message.offset) === Number(range.to) - 1 && --left === 0) finished();
      }
    },
  });
  for (const range of ranges) consumer.seek({ topic: range.topic, partition: range.partition, offset: range.from });
  await done;
  await consumer.disconnect();
  return sent;
}

/** Rows and size of the messaging tables of every service database. */
async function messagingTables(layout) {
  const sizes = {};
  for (const name of SERVICES) {
    const client = new pg.Client({ connectionString: layout.envs[name].DATABASE_URL });
    await client.connect();
    try {
      for (const table of ['outbox_event', 'processed_event', 'consumer_position']) {
        const { rows } = await client.query(
          `select count(*)::int as rows, pg_total_relation_size('${table}')::bigint as bytes from ${table}`,
        );
        sizes[`${name}.${table}`] = { rows: rows[0].rows, kib: round(Number(rows[0].bytes) / 1024) };
      }
    } finally {
      await client.end();
    }
  }
  return sizes;
}

const USER_HZ = 100; // what /proc/<pid>/stat counts CPU time in on Linux

/** CPU seconds a process has used so far (0 once it is gone). */
function cpuOf(pid) {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / USER_HZ;
  } catch {
    return 0;
  }
}

/** The pid a server wrote to `file`, if it still runs. */
function readPid(file) {
  try {
    const pid = fs.readFileSync(file, 'utf8').trim();
    return fs.existsSync(`/proc/${pid}`) ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** The local PostgreSQL server's main process (its backends are its children). */
function postmasterPid() {
  const dir = '/var/run/postgresql';
  const file = fs.existsSync(dir) ? fs.readdirSync(dir).find((name) => name.endsWith('.pid')) : undefined;
  return file ? fs.readFileSync(path.join(dir, file), 'utf8').trim() : undefined;
}

/**
 * CPU seconds used so far by each process of the stack, of the local PostgreSQL server (each
 * backend), of the stack's Kafka broker(s), of the NATS server, of the bench's Redis and of this
 * process (the load generator), by pid.
 */
function cpuSnapshot(processes) {
  const snapshot = new Map(Object.entries(processes).map(([name, child]) => [String(child.pid), { part: name, cpu: cpuOf(child.pid) }]));
  const postmaster = postmasterPid();
  const kafkaData = process.env.KAFKA_DATA_DIR ?? path.join(os.homedir(), '.cache/petstore/kafka-data');
  // The single broker's configuration, or one of the bench cluster's three (<dataDir>/node-<n>/).
  const isBroker = (cmdline) =>
    cmdline.includes(`${kafkaData}/server.properties`) || cmdline.includes(`${UNSECURED_BUS.kafka.dataDir}/server.properties`) || isBenchClusterBroker(cmdline);
  if (postmaster) snapshot.set(postmaster, { part: 'postgres', cpu: cpuOf(postmaster) });
  for (const pid of fs.readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
    try {
      const parent = /PPid:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
      if (parent === postmaster) snapshot.set(pid, { part: 'postgres', cpu: cpuOf(pid) });
      else if (isBroker(fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8'))) {
        snapshot.set(pid, { part: 'kafka', cpu: cpuOf(pid) });
      } else if (fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'nats-server') snapshot.set(pid, { part: 'nats', cpu: cpuOf(pid) });
    } catch {
      // gone meanwhile
    }
  }
  // The bench's own Redis servers (the security section's rate limit), not the machine's.
  for (const port of [SECURED_REDIS_PORT, UNSECURED_BUS.redisPort]) {
    const pid = readPid(path.join(redisTool.redisDir(port), 'redis.pid'));
    if (pid) snapshot.set(pid, { part: 'redis', cpu: cpuOf(pid) });
  }
  snapshot.set(String(process.pid), { part: 'load generator', cpu: cpuOf(process.pid) });
  return snapshot;
}

/** CPU seconds each part used between two snapshots (a process that started meanwhile counts from zero). */
function cpuSpent(before, after) {
  const spent = {};
  for (const [pid, { part, cpu }] of after) spent[part] = (spent[part] ?? 0) + cpu - (before.get(pid)?.cpu ?? 0);
  return spent;
}

/** `run`'s result and the CPU each part of the machine spent per order it decided (ms) while it ran. */
async function withCpuPerOrder(processes, run) {
  const before = cpuSnapshot(processes);
  const result = await run();
  const spent = cpuSpent(before, cpuSnapshot(processes));
  const cpuMsPerOrder = Object.fromEntries(
    Object.entries(spent).map(([part, seconds]) => [part, round((seconds * 1000) / Math.max(1, result.decided), 2)]),
  );
  return { ...result, cpuMsPerOrder };
}

/** Share of one core each process used while nothing was asked of it. */
async function idleCpu(processes, seconds) {
  const before = Object.fromEntries(Object.entries(processes).map(([name, child]) => [name, cpuOf(child.pid)]));
  await sleep(seconds * 1000);
  return Object.fromEntries(
    Object.entries(processes).map(([name, child]) => [name, round(((cpuOf(child.pid) - before[name]) / seconds) * 100, 2)]),
  );
}

/** `cpuOf`: the processes whose CPU per request (µs) to report, beside PostgreSQL, Kafka, NATS and this one. */
async function cannon({ url, headers = {}, duration = READ_SECONDS, connections = CONNECTIONS, requests, warmup = false, cpuOf }) {
  const options = { url, headers, connections, duration, requests, pipelining: 1 };
  if (warmup) await autocannon({ ...options, duration: 3 });
  const before = cpuOf && cpuSnapshot(cpuOf);
  const result = await autocannon(options);
  const spent = cpuOf && cpuSpent(before, cpuSnapshot(cpuOf));
  return {
    ...(spent && { cpuUsPerRequest: Object.fromEntries(Object.entries(spent).filter(([, seconds]) => seconds > 0).map(([part, seconds]) => [part, Math.round((seconds * 1e6) / Math.max(1, result.requests.total))])) }),
    requestsPerSecond: round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    ok: result['2xx'],
    failed: result.non2xx + result.errors + result.timeouts,
  };
}

/** `target`'s order requests at `rate` a second, evenly spaced, whatever the answers do (open loop). */
async function paced(target, { rate, seconds, extraHeaders, onResponse }) {
  const request = target.request(extraHeaders);
  const result = await pacedLoad({
    url: target.url,
    method: request.method,
    headers: request.headers,
    body: () => request.setupRequest({}).body,
    rate,
    durationSeconds: seconds,
    onResponse,
  });
  return { ...result, requestsPerSecond: round(result.requestsPerSecond), p50: round(result.p50), p99: round(result.p99) };
}

/** Every approved order took its units exactly once: stock + approved units = what was stocked. */
async function checkStock(call, ordersDb, pets) {
  const deadline = Date.now() + 60_000;
  while ((await ordersDb.query("select 1 from store_order where status = 'placed' limit 1")).rows.length > 0) {
    if (Date.now() > deadline) throw new Error('orders were still undecided a minute after the load ended');
    await sleep(200);
  }
  const { rows } = await ordersDb.query(
    `select pet_id, sum(quantity)::int as units from store_order where status = 'approved' and pet_id = any($1) group by pet_id`,
    [pets.map((pet) => pet.id)],
  );
  const approved = new Map(rows.map((row) => [Number(row.pet_id), row.units]));
  let stock = 0;
  let mismatches = 0;
  for (const pet of pets) {
    const item = await call('GET', `/v1/store/inventory/${pet.id}`);
    if (item.quantity + (approved.get(pet.id) ?? 0) !== STOCK_PER_PET) mismatches += 1;
    stock += item.quantity;
  }
  const approvedUnits = [...approved.values()].reduce((sum, units) => sum + units, 0);
  return { pets: pets.length, stocked: pets.length * STOCK_PER_PET, approvedUnits, remaining: stock, mismatches, exact: mismatches === 0 };
}

async function environment() {
  const client = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
  await client.connect();
  const { rows } = await client.query('show server_version');
  await client.end();
  const pkg = (name) => JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules', name, 'package.json'), 'utf8')).version;
  return {
    cpus: `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'unknown'}`,
    memoryGiB: round(os.totalmem() / 2 ** 30),
    node: process.version,
    postgres: rows[0].server_version,
    kafka: '3.9.2',
    nestjs: pkg('@nestjs/core'),
    mikroOrm: pkg('@mikro-orm/core'),
    kafkajs: pkg('kafkajs'),
  };
}

/** All the CPU the machine spent per decided order (ms). */
const cpuTotal = (c) => round(Object.values(c.cpuMsPerOrder ?? {}).reduce((sum, ms) => sum + ms, 0), 2);

const table = (head, rows) => [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((row) => `| ${row.join(' | ')} |`)];

/**
 * The figures go between the markers of docs/BENCHMARKS.md; the reading of them around the
 * markers is written by hand and survives the next run.
 */
function writeReport(results) {
  const day = results.startedAt.slice(0, 10);
  const rawDir = path.join(ROOT, 'docs/bench');
  fs.mkdirSync(rawDir, { recursive: true });
  // A soak is a run of its own (BENCH_ONLY=soak): its figures and raw file stay beside the main ones.
  const soakOnly = results.soak && !results.capacity && !results.reads;
  // So is a comparison of the RPC transports (BENCH_ONLY=transports), and one of the bus's security (BENCH_ONLY=security).
  const transportsOnly = results.transports && !results.capacity && !results.reads;
  const securityOnly = results.security && !results.capacity && !results.reads;
  const suffix = `${soakOnly ? '-soak' : ''}${transportsOnly ? '-transports' : ''}${securityOnly ? '-security' : ''}`;
  const rawFile = path.join(rawDir, `raw-${day}${suffix}.json`);
  fs.writeFileSync(rawFile, `${JSON.stringify(results, null, 2)}\n`);
  const rel = path.relative(path.join(ROOT, 'docs'), rawFile);

  const e = results.environment;
  const s = results.settings;
  const out = [
    `Run of ${results.startedAt} on ${e.cpus}, ${e.memoryGiB} GiB; Node ${e.node}, PostgreSQL ${e.postgres}, ` +
      `Kafka ${e.kafka}, NestJS ${e.nestjs}, MikroORM ${e.mikroOrm}, kafkajs ${e.kafkajs}. The stack, the floors and the ` +
      `load generator share the machine. Raw figures: [${rel}](${rel}).`,
  ];
  if (results.reads) {
    out.push('', `### Read path (${s.READ_SECONDS} s per run after a 3 s warm-up, ${s.CONNECTIONS} connections)`, '');
    out.push(...table(['query', 'served by', 'requests/s', 'p50 ms', 'p99 ms'], results.reads.flatMap((r) => [
      [r.name, `gateway (HTTP → ${r.transport} → catalog)`, r.gateway.requestsPerSecond, r.gateway.p50, r.gateway.p99],
      ['', `catalog direct (${r.transport})`, r.direct.requestsPerSecond, r.direct.p50, r.direct.p99],
      ['', 'floor (node:http + pg, same SQL)', r.floor.requestsPerSecond, r.floor.p50, r.floor.p99],
      ['', 'gateway / direct', `**${r.gatewayToDirect}**`, '', ''],
      ['', 'gateway / floor', `**${r.gatewayToFloor}**`, '', ''],
      ...(r.baseline ? [['', `baseline gateway (${r.baseline.build})`, r.baseline.requestsPerSecond, r.baseline.p50, r.baseline.p99], ['', 'baseline / floor', `**${r.baselineToFloor}**`, '', '']] : []),
    ])));
    const cpuLine = (cpu) => `${Object.entries(cpu).map(([part, us]) => `${part} ${us}`).join(', ')}; **${Object.values(cpu).reduce((sum, us) => sum + us, 0)}** in all`;
    const withCpu = results.reads.filter((r) => r.gateway.cpuUsPerRequest && r.floor.cpuUsPerRequest);
    if (withCpu.length > 0) {
      out.push('', 'CPU per request while each ran (µs, from /proc, every process that took part; the ratio of the totals is roughly the inverse of the ratio of requests/s, both runs having the same two cores):', '');
      for (const r of withCpu) out.push(`- ${r.name}: through the gateway ${cpuLine(r.gateway.cpuUsPerRequest)}; floor ${cpuLine(r.floor.cpuUsPerRequest)}.`);
    }
  }
  if (results.capacity || results.floorCapacity) {
    out.push('', `### Saga capacity (closed loop, ${s.CAPACITY_CONNECTIONS} connections, ${s.CAPACITY_SECONDS} s of placements, decisions read from the database)`, '');
    const row = (name, c) => [name, c.placedPerSecond, c.decided, c.undecided, `**${c.decidedPerSecond}**`, c.decisionP50, c.decisionP99, c.failed];
    const rows = [];
    if (results.capacity) rows.push(row('the stack (gateway → orders → Kafka → inventory → Kafka → orders)', results.capacity));
    if (results.floorCapacity) rows.push(row('saga floor (node:http + pg + kafkajs)', results.floorCapacity));
    out.push(...table(['pipeline', 'placed/s', 'decided', 'left undecided', 'decided/s', 'placed→decided p50 ms', 'p99 ms', 'failed'], rows));
    if (results.capacity && results.floorCapacity) {
      out.push('', `Stack / floor: **${round(results.capacity.decidedPerSecond / results.floorCapacity.decidedPerSecond, 2)}**.`);
    }
    out.push('', 'CPU per decided order during that run (ms; a process that shows 0.5 ms per order can take at most 2,000 orders/s of one core):', '');
    for (const [name, c] of [['stack', results.capacity], ['floor', results.floorCapacity]]) {
      if (!c?.cpuMsPerOrder) continue;
      const parts = Object.entries(c.cpuMsPerOrder);
      out.push(`- ${name}: ${parts.map(([part, ms]) => `${part} ${ms}`).join(', ')}; **${cpuTotal(c)} ms** in all.`);
    }
  }
  out.push(...clusterReport(results, { table }));
  const transportsOut = [];
  if (results.transports) {
    transportsOut.push(out[0]);
    transportsOut.push('', `### RPC transports (the stack restarted with each in turn; reads ${s.READ_SECONDS} s per run, ${s.CONNECTIONS} connections; saga capacity as above)`, '');
    transportsOut.push(...table(
      ['RPC_TRANSPORT', 'query', 'gateway req/s', 'p99 ms', 'catalog direct req/s', 'p99 ms', 'floor req/s', 'gateway / floor', 'direct / floor'],
      results.transports.flatMap((t) => t.reads.map((r) => [t.transport, r.name, r.gateway.requestsPerSecond, r.gateway.p99, r.direct.requestsPerSecond, r.direct.p99,
        r.floor.requestsPerSecond, `**${r.gatewayToFloor}**`, `**${round(r.direct.requestsPerSecond / r.floor.requestsPerSecond, 2)}**`])),
    ));
    transportsOut.push('', ...table(['RPC_TRANSPORT', 'placed/s', 'decided/s', 'placed→decided p50 ms', 'p99 ms', 'failed', 'CPU ms per order'],
      results.transports.map((t) => [t.transport, t.capacity.placedPerSecond, `**${t.capacity.decidedPerSecond}**`, t.capacity.decisionP50, t.capacity.decisionP99, t.capacity.failed, cpuTotal(t.capacity)])));
  }
  const securityOut = [];
  if (results.security) {
    const { runs, onToOff, target } = results.security;
    const mean = (r) => `**${r.mean}**${r.each.length > 1 ? ` (${r.each.join(', ')})` : ''}`;
    const verdict = (r) => (r.mean === null ? '' : r.mean >= target ? 'meets' : '**misses**');
    securityOut.push(out[0]);
    securityOut.push('', `### Bus security on vs off (the stack restarted with each in turn; reads ${s.READ_SECONDS} s per run, ${s.CONNECTIONS} connections; saga capacity as above; the rate limit counted in Redis in both)`, '');
    securityOut.push(...table(
      ['bus security', 'query', 'gateway req/s', 'p99 ms', 'catalog direct req/s', 'p99 ms', 'floor req/s', 'gateway / floor'],
      runs.flatMap((run) => run.reads.map((r) => [run.mode, r.name, r.gateway.requestsPerSecond, r.gateway.p99, r.direct.requestsPerSecond, r.direct.p99, r.floor.requestsPerSecond, `**${r.gatewayToFloor}**`])),
    ));
    securityOut.push('', ...table(['bus security', 'placed/s', 'decided/s', 'placed→decided p50 ms', 'p99 ms', 'failed', 'CPU ms per order'],
      runs.map((run) => [run.mode, run.capacity.placedPerSecond, `**${run.capacity.decidedPerSecond}**`, run.capacity.decisionP50, run.capacity.decisionP99, run.capacity.failed, cpuTotal(run.capacity)])));
    securityOut.push('', `On / off, mean of the pairs run next to each other (each pair in brackets); target ≥ ${target}, reported, not enforced:`, '');
    securityOut.push(...table(['figure', 'on / off', 'target'], [
      ['saga decided/s', mean(onToOff.sagaDecidedPerSecond), verdict(onToOff.sagaDecidedPerSecond)],
      ...Object.entries(onToOff.reads).flatMap(([name, r]) => [
        [`${name} through the gateway`, mean(r.gateway), verdict(r.gateway)],
        [`${name} catalog direct`, mean(r.direct), verdict(r.direct)],
      ]),
    ]));
  }
  if (results.tracing) {
    const t = results.tracing;
    out.push('', `### Tracing on vs off (saga capacity as above, run one after the other; on = every process exporting OTLP/HTTP protobuf to a receiver in the benchmark process)`, '');
    const row = (name, c) => [name, c.placedPerSecond, `**${c.decidedPerSecond}**`, c.decisionP50, c.decisionP99, c.failed, cpuTotal(c)];
    out.push(...table(['tracing', 'placed/s', 'decided/s', 'placed→decided p50 ms', 'p99 ms', 'failed', 'CPU ms per order'], [row('off', t.off), row('on', t.on)]));
    out.push('', `On / off: **${t.onToOff}**; ${t.spansReceived} spans received (${t.spansPerOrder} per order).`);
  }
  const rateRows = (name, list) => list.map((r) => [name, r.offeredRate, r.achievedRate, r.created, r.failed, r.placementP50, r.placementP99, r.decidedPerSecond, `**${r.decisionP50}**`, `**${r.decisionP99}**`]);
  if (results.rates || results.floorRates) {
    out.push('', `### Saga at fixed rates (open loop, requests evenly spaced, ${s.RATE_SECONDS} s each; placed → decided as the orders table records it)`, '');
    out.push(...table(
      ['pipeline', 'offered/s', 'placed/s', '201s', 'failed', '201 p50 ms', '201 p99 ms', 'decided/s', 'placed→decided p50 ms', 'p99 ms'],
      [...rateRows('stack', results.rates ?? []), ...rateRows('floor', results.floorRates ?? [])],
    ));
    const staged = (results.rates ?? []).filter((r) => r.stages);
    if (staged.length > 0) {
      const names = Object.keys(staged[0].stages);
      out.push('', 'Where the stack\'s placed → decided goes, per order (p50 / p90 ms of each stage; database times are transaction starts, Kafka times the relay\'s send):', '');
      out.push(...table(['offered/s', ...names], staged.map((r) => [r.offeredRate, ...names.map((name) => `${r.stages[name].p50} / ${r.stages[name].p90}`)])));
    }
    const measured = [...(results.rates ?? []).map((r) => ['stack', r]), ...(results.floorRates ?? []).map((r) => ['floor', r])].filter(([, r]) => r.cpuMsPerOrder);
    if (measured.length > 0) {
      const parts = [...new Set(measured.flatMap(([, r]) => Object.keys(r.cpuMsPerOrder)))];
      out.push('', 'CPU per decided order at each rate (ms, every process of the machine; at a low rate each order pays every hop\'s cycle by itself):', '');
      out.push(...table(['pipeline', 'offered/s', ...parts, 'in all'], measured.map(([name, r]) => [name, r.offeredRate, ...parts.map((part) => r.cpuMsPerOrder[part] ?? ''), `**${cpuTotal(r)}**`])));
    }
  }
  if (results.wait) {
    out.push('', '### `Prefer: wait=5` (what a client sees: the 201 carries the decision; requests evenly spaced)', '');
    out.push(...table(['offered/s', 'answered/s', 'answers', 'decided in the answer', 'Preference-Applied', 'p50 ms', 'p99 ms', 'failed', 'placed→decided p50 / p99 ms (same orders)', 'CPU ms per order'],
      results.wait.map((w) => [w.offeredRate, w.achievedRate, w.answers, w.decidedAnswers, w.applied, `**${w.p50}**`, `**${w.p99}**`, w.failed, `${w.decisionP50} / ${w.decisionP99}`, cpuTotal(w)])));
  }
  const soakOut = [];
  if (results.soak) {
    soakOut.push(out[0]);
    const soak = results.soak;
    soakOut.push('', `### Soak (${soak.minutes.length} min at ${soak.rate} orders/s)`, '');
    soakOut.push(...table(['minute', 'placed/s', 'decided/s', 'placed→decided p50 ms', 'p99 ms', 'failed', 'CPU ms per order'],
      soak.minutes.map((m) => [m.minute, m.achievedRate, m.decidedPerSecond, m.decisionP50, m.decisionP99, m.failed, cpuTotal(m)])));
    soakOut.push('', 'Messaging tables (rows / KiB) at the start and the end:', '');
    soakOut.push(...table(['table', 'start', 'end'], Object.keys(soak.tablesAtEnd).map((name) => [
      name, `${soak.tablesAtStart[name].rows} / ${soak.tablesAtStart[name].kib}`, `${soak.tablesAtEnd[name].rows} / ${soak.tablesAtEnd[name].kib}`,
    ])));
  }
  if (results.stockCheck) {
    const c = results.stockCheck;
    out.push('', `Stock check after the load: ${c.pets} pets stocked with ${c.stocked} units, ${c.approvedUnits} units in approved orders, ` +
      `${c.remaining} left, ${c.mismatches} pets where stock + approved ≠ stocked — **${c.exact ? 'exact' : 'NOT exact'}**.`);
  }
  if (results.memoryAtRest) {
    out.push('', '### Memory (RSS, MiB) and idle CPU', '');
    out.push(...table(['process', 'RSS at rest', 'RSS peak under load', 'idle CPU (% of a core)'], Object.keys(results.memoryAtRest).map((name) => [
      name, results.memoryAtRest[name], results.memoryUnderWriteLoad?.[name] ?? '', results.idleCpu?.[name] ?? '',
    ])));
  }

  const reportFile = path.join(ROOT, 'docs/BENCHMARKS.md');
  let report = fs.existsSync(reportFile) ? fs.readFileSync(reportFile, 'utf8') : '# Benchmarks\n';
  const between = (marker, lines) => {
    const [begin, end] = [`<!-- ${marker}:begin -->`, `<!-- ${marker}:end -->`];
    if (!report.includes(begin)) report += `\n${begin}\n${end}\n`;
    report = `${report.slice(0, report.indexOf(begin))}${begin}\n${lines.join('\n')}\n${report.slice(report.indexOf(end))}`;
  };
  if (!soakOnly && !transportsOnly && !securityOnly) between('bench', out);
  if (soakOut.length > 0) between('bench-soak', soakOut);
  if (transportsOut.length > 0) between('bench-transports', transportsOut);
  if (securityOut.length > 0) between('bench-security', securityOut);
  fs.writeFileSync(reportFile, report);
  log(`wrote docs/BENCHMARKS.md and ${path.relative(ROOT, rawFile)}`);
}

main().catch((error) => {
  console.error(`[bench] failed: ${error.stack ?? error.message}`);
  process.exit(1);
});
