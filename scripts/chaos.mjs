// `npm run chaos`: faults under continuous order load, on a stack of its own (ports +25000,
// `_chaos` databases, its own Kafka broker and namespace), with the invariants checked after
// each scenario; then the same on the scaled stack (three brokers of its own, two replicas of
// every tier behind HAProxy, `_cluster_chaos` databases). Writes docs/RELIABILITY.md from the
// run. `--short` runs the scenarios marked short, gentler, without writing the report (a stage
// of `npm test`). `--cluster` runs only the scaled stack's scenarios, `--single` only the others.
//
// Run it alone on the machine: `flock /tmp/petstore-stack.lock node scripts/chaos.mjs` (it restarts
// the machine's PostgreSQL cluster for one scenario, under that lock). Through `node`: npm does not
// hand the lock on to the script, which would then wait for the lock its own parent holds.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import stack from '../tools/stack/stack.cjs';
import { chaosKafka, consumerLag, deadLetters, decisionsOf, republishedOn } from './chaos/checks.mjs';
import { Api, OrderLoad } from './chaos/load.mjs';
import { CHAOS_CLUSTER_KAFKA, CHAOS_KAFKA, ChaosStack, brokerCommand, brokerEnv, clusterBrokerEnv, sleep } from './chaos/processes.mjs';
import { SCENARIOS, postgresCluster } from './chaos/scenarios.mjs';
import { CLUSTER_SCENARIOS } from './chaos/cluster-scenarios.mjs';
import cluster from '../tools/stack/cluster.cjs';

const SHORT = process.argv.includes('--short');
const ONLY_CLUSTER = process.argv.includes('--cluster');
const WITH_CLUSTER = !process.argv.includes('--single');
/** CHAOS_ONLY=<part of a name>: only the scenarios whose name contains it (while working on one). */
const ONLY = process.env.CHAOS_ONLY;
const RATE = Number(process.env.CHAOS_RATE ?? 20); // orders offered per second
/** The stated bound: every accepted order is decided, and every partition caught up, this long after recovery. */
const SETTLE_SECONDS = 30;
/**
 * The whole run stops by itself after this, whatever state it is in: a bound on a hang, not on
 * speed. The short suite takes 7–10 minutes on a 2-core host, builds and both stacks included.
 */
const RUN_LIMIT_MINUTES = SHORT ? 12 : 24;
const PETS = [400, 400, 400, 400, 400, 5]; // stock per pet: one pet runs out, so some orders are rejected
const API_KEY = `chaos-${randomBytes(12).toString('hex')}`;
const EXTRA_ENV = {
  NODE_ENV: 'production',
  LOG_LEVEL: 'warn',
  RATE_LIMIT_PER_SECOND: '0',
  API_KEYS: JSON.stringify([{ name: 'chaos', key: API_KEY, scopes: ['*'] }]),
};

const log = (message) => console.log(`[chaos] ${message}`);
const seconds = (ms) => Math.round(ms / 100) / 10;

async function main() {
  const startedAt = new Date();
  const running = { stack: undefined, balancer: undefined };
  // Whatever happens, nothing of the run outlives it: its processes and its brokers go with it.
  const abandon = (reason, code) => {
    console.error(`[chaos] ${reason}; stopping`);
    running.stack?.killAll();
    running.balancer?.kill('SIGKILL');
    spawnSync('bash', [path.join(stack.ROOT, 'scripts/kafka.sh'), 'stop'], { env: { ...process.env, ...brokerEnv() }, stdio: 'ignore' });
    spawnSync('bash', [path.join(stack.ROOT, 'scripts/kafka.sh'), 'cluster', 'stop'], { env: { ...process.env, ...clusterBrokerEnv() }, stdio: 'ignore' });
    process.exit(code);
  };
  const hardStop = setTimeout(() => abandon(`the run exceeded ${RUN_LIMIT_MINUTES} minutes`, 2), RUN_LIMIT_MINUTES * 60_000);
  hardStop.unref();
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => abandon(signal, 130));

  await stack.ensurePostgres();
  stack.build();
  const results = ONLY_CLUSTER ? [] : await runSingle(running);
  const clusterResults = WITH_CLUSTER ? await runCluster(running) : [];

  const all = [...results, ...clusterResults];
  const failed = all.filter((r) => r.failures.length > 0);
  const finishedAt = new Date();
  const environment = await environmentOf();
  if (results.length) printTable(results);
  if (clusterResults.length) printTable(clusterResults, { cluster: true });
  if (SHORT) writeSummary(all);
  else writeReport({ results, clusterResults, startedAt, finishedAt, environment });
  log(`${all.length - failed.length} scenario(s) held every invariant, ${failed.length} did not; ${seconds(finishedAt - startedAt)} s in all`);
  clearTimeout(hardStop);
  process.exit(failed.length > 0 ? 1 : 0);
}

/** The scenarios of scenarios.mjs on the stack of `npm start`'s shape: one process per tier, one broker. */
async function runSingle(running) {
  // Emptied every run, as the cluster's brokers are: the topics of earlier runs would only slow its restarts.
  stack.kafka('reset', CHAOS_KAFKA);
  stack.ensureKafka(CHAOS_KAFKA);
  const namespace = `chaos-${randomBytes(4).toString('hex')}.`;
  const brokers = `127.0.0.1:${CHAOS_KAFKA.port}`;
  const layout = stack.stackLayout({ offset: 25_000, databaseSuffix: '_chaos', namespace, kafkaBrokers: brokers, kafkaSecrets: stack.kafkaSecretsDir(CHAOS_KAFKA) });
  await stack.dropDatabases(layout);
  stack.runMigrations(layout, EXTRA_ENV);
  // The stack's own NATS server (its processes are started one by one here, not by startStack).
  await stack.ensureNats(layout.nats);
  const chaosStack = new ChaosStack(layout, { extraEnv: EXTRA_ENV, output: stackLog('chaos-stack.log') });
  running.stack = chaosStack;
  log(`stack on ports +25000, namespace ${namespace}, broker ${brokers}; service output in tmp/chaos-stack.log`);
  for (const name of stack.SERVICES) await chaosStack.start(name);
  await chaosStack.start('gateway');

  const waitReady = () => waitUntilAllReady(chaosStack, ['catalog', 'orders', 'inventory', 'gateway']);
  const restore = async () => {
    await brokerCommand('start');
    for (const name of [...stack.SERVICES, 'gateway']) {
      if (!chaosStack.running(name)) await chaosStack.start(name);
    }
    for (const name of [...chaosStack.processes.keys()].filter((n) => n.includes('-'))) await chaosStack.signal(name, 'SIGTERM');
    await waitReady();
  };
  try {
    return await runScenarios(SCENARIOS, { chaosStack, layout, namespace, brokers, waitReady, restore });
  } finally {
    await chaosStack.stopAll();
    await brokerCommand('stop').catch(() => undefined);
  }
}

/** The scenarios of cluster-scenarios.mjs on the scaled stack: three brokers, two replicas of every tier behind HAProxy. */
async function runCluster(running) {
  const namespace = `chaos-${randomBytes(4).toString('hex')}.`;
  const layout = cluster.clusterLayout({ offset: 25_000, databaseSuffix: '_cluster_chaos', namespace, kafka: CHAOS_CLUSTER_KAFKA });
  // From empty brokers: an earlier run's partitions would only slow every broker's restart.
  cluster.clusterKafka('reset', CHAOS_CLUSTER_KAFKA);
  cluster.clusterKafka('start', CHAOS_CLUSTER_KAFKA);
  await cluster.ensureNatsAndRedis(layout);
  await stack.dropDatabases(layout);
  stack.runMigrations(layout, EXTRA_ENV);
  const output = stackLog('chaos-cluster.log');
  const chaosStack = new ChaosStack(layout, { extraEnv: EXTRA_ENV, output });
  running.stack = chaosStack;
  log(`scaled stack: HAProxy on ${layout.urls.gateway}, ${layout.gateways.length} gateways, ${layout.services.length} service replicas, brokers ${layout.brokers}, namespace ${namespace}; output in tmp/chaos-cluster.log`);
  await Promise.all(layout.services.map((name) => chaosStack.start(name)));
  await Promise.all(layout.gateways.map((name) => chaosStack.start(name)));
  running.balancer = await cluster.startBalancer(layout, { output });
  await cluster.waitForBalancer(layout);

  const replicas = [...layout.services, ...layout.gateways];
  const waitReady = async () => {
    await waitUntilAllReady(chaosStack, replicas);
    await cluster.waitForBalancer(layout, 90_000);
  };
  const restore = async () => {
    cluster.clusterKafka('start', CHAOS_CLUSTER_KAFKA);
    for (const name of replicas) {
      if (!chaosStack.running(name)) await chaosStack.start(name);
    }
    for (const name of [...chaosStack.processes.keys()].filter((n) => !replicas.includes(n))) await chaosStack.signal(name, 'SIGTERM');
    await waitReady();
  };
  try {
    return await runScenarios(CLUSTER_SCENARIOS, { chaosStack, layout, namespace, brokers: layout.brokers, waitReady, restore, reads: true });
  } finally {
    await stack.stopProcess(running.balancer);
    await Promise.all(layout.gateways.map((name) => stack.stopProcess(chaosStack.processes.get(name))));
    await chaosStack.stopAll();
    await cluster.clusterKafkaAsync('stop', CHAOS_CLUSTER_KAFKA).catch(() => undefined);
  }
}

function stackLog(name) {
  fs.mkdirSync(path.join(stack.ROOT, 'tmp'), { recursive: true });
  return fs.createWriteStream(path.join(stack.ROOT, 'tmp', name));
}

async function waitUntilAllReady(chaosStack, names) {
  const deadline = Date.now() + 90_000;
  for (const name of names) {
    const ready = () => fetch(`${chaosStack.urlOf(name)}/health/ready`, { signal: AbortSignal.timeout(2000) }).then((r) => r.ok, () => false);
    while (!(await ready())) {
      if (Date.now() > deadline) throw new Error(`${name} was not ready 90 s after the fault`);
      await sleep(200);
    }
  }
}

/** Each scenario on fresh pets under the order load, then the invariants. */
async function runScenarios(scenarios, { chaosStack, layout, namespace, brokers, waitReady, restore, reads = false }) {
  const api = new Api(layout.urls.gateway, API_KEY);
  const kafka = chaosKafka(brokers, layout.kafkaSecrets);
  const producer = kafka.producer();
  const poisoned = new Set();
  const results = [];
  try {
    const category = await api.must('POST', '/v1/categories', { name: `Chaos ${namespace}`, description: 'chaos run' }, [201]);
    let petNumber = 0;
    const seedPets = async (count, stocks) => {
      const pets = [];
      for (let i = 0; i < count; i += 1) {
        const pet = await api.must('POST', '/v1/pets', { name: `Chaos pet ${++petNumber}`, categoryId: category.id }, [201]);
        const stock = stocks[i] ?? null;
        if (stock !== null) await api.must('PUT', `/v1/store/inventory/${pet.id}`, { quantity: stock }, [200]);
        pets.push({ id: pet.id, stock: stock ?? 0 });
      }
      return pets;
    };
    const produce = async (topic, key, envelope, { partition, headers = {} } = {}) => {
      await producer.connect();
      await producer.send({
        topic,
        acks: -1,
        messages: [{ key, partition, value: JSON.stringify(envelope), headers: { ...headers, 'event-type': envelope.type, 'event-id': envelope.eventId } }],
      });
    };

    const chosen = scenarios
      .filter((s) => !SHORT || s.short)
      .filter((s) => !ONLY || s.name.includes(ONLY))
      .map((s) => (SHORT ? { ...s, name: s.shortName ?? s.name } : s));
    for (const scenario of chosen) {
      log(`── ${scenario.name}`);
      const pets = await seedPets(PETS.length, PETS);
      const load = new OrderLoad(api, pets, { rate: RATE, reads });
      let recoveredAt;
      const recovered = () => (recoveredAt ??= Date.now());
      const context = { stack: chaosStack, layout, api, kafka, load, namespace, waitReady, seedPets, produce, poisoned, recovered, postgresCluster: postgresCluster() };
      load.start();
      await sleep(2000);
      let outcome = {};
      let faultError;
      try {
        outcome = (await ((SHORT && scenario.shortFault) || scenario.fault)(context)) ?? {};
      } catch (error) {
        faultError = error;
      }
      recovered();
      await load.stop();
      await restore();
      const result = await settle({ scenario, load, api, kafka, namespace, recoveredAt, poisoned });
      if (faultError) result.failures.unshift(`the fault itself failed: ${faultError.message}`);
      const { failures: faultFailures = [], ...rest } = outcome;
      Object.assign(result, rest);
      result.failures.push(...faultFailures);
      results.push(result);
      log(describe(result));
    }
  } finally {
    await producer.disconnect().catch(() => undefined);
  }
  return results;
}

/** Dead letters already judged by an earlier scenario, and the poison events already found there. */
const seenLetters = new Set();
const deadLettered = new Set();

/** After recovery: every invariant, each checked against the scenario's own pets and orders. */
async function settle({ scenario, load, api, kafka, namespace, recoveredAt, poisoned }) {
  const deadline = recoveredAt + SETTLE_SECONDS * 1000;
  const failures = [];
  const unresolved = await load.resolveUnknown(deadline);
  if (unresolved > 0) failures.push(`${unresolved} order(s) whose outcome stayed unknown`);

  // Every accepted order decided: nothing of the scenario's pets left `placed`.
  let decidedAt;
  while (Date.now() < deadline) {
    const placed = await Promise.all(load.pets.map((pet) => api.must('GET', `/v1/store/orders?petId=${pet.id}&status=placed&limit=1`, undefined, [200])));
    if (placed.every((page) => page.length === 0)) {
      decidedAt = Date.now();
      break;
    }
    await sleep(250);
  }
  const orders = (await Promise.all(load.pets.map((pet) => api.ordersOf(pet.id)))).flat();
  const byId = new Map(orders.map((order) => [order.id, order]));
  const lost = [...load.accepted.keys()].filter((id) => !byId.has(id)).length;
  const stuck = orders.filter((order) => order.status === 'placed').length;
  if (lost > 0) failures.push(`${lost} accepted order(s) do not exist`);
  // Each placement kept one Idempotency-Key across its retries: any other order was placed twice.
  const unanswered = load.unanswered(orders);
  if (unanswered > 0) failures.push(`${unanswered} order(s) that no placement returned (placed twice, or its outcome never learnt)`);
  if (stuck > 0) failures.push(`${stuck} order(s) still placed ${SETTLE_SECONDS} s after recovery`);

  // Stock per pet + approved units = stocked.
  let stockMismatches = 0;
  for (const pet of load.pets) {
    const approvedUnits = orders.filter((o) => o.petId === pet.id && o.status === 'approved').reduce((sum, o) => sum + o.quantity, 0);
    const item = await api.call('GET', `/v1/store/inventory/${pet.id}`);
    const quantity = item.status === 200 ? item.body.quantity : 0;
    if (quantity + approvedUnits !== pet.stock) {
      stockMismatches += 1;
      failures.push(`pet ${pet.id}: stock ${quantity} + approved ${approvedUnits} ≠ stocked ${pet.stock}`);
    }
  }

  // No event had an effect twice: exactly one decision event per order, agreeing with its status.
  // The poison events are not decisions: the consumers refused them.
  const { eventIdsByOrder, redelivered } = await decisionsOf(kafka, namespace, orders.map((o) => o.id), poisoned);
  let twice = 0;
  let disagreeing = 0;
  for (const order of orders) {
    const decisions = eventIdsByOrder.get(order.id) ?? [];
    if (decisions.length > 1) twice += 1;
    const expected = { approved: 'StockReserved', rejected: 'StockReservationRejected' }[order.status];
    if (expected && (decisions.length !== 1 || decisions[0].type !== expected)) disagreeing += 1;
  }
  if (twice > 0) failures.push(`${twice} order(s) decided by more than one event`);
  if (disagreeing > 0) failures.push(`${disagreeing} order(s) whose status does not match their one decision event`);
  const republished = scenario.duplicatesOn ? await republishedOn(kafka, `${namespace}${scenario.duplicatesOn}`) : 0;

  // No partition stuck: every group caught up with every topic it reads.
  let lag;
  do {
    lag = await consumerLag(kafka, namespace);
    if (lag.lag === 0) break;
    await sleep(500);
  } while (Date.now() < deadline);
  if (lag.lag > 0) failures.push(`consumer lag ${lag.lag} ${SETTLE_SECONDS} s after recovery (${lag.stuck.join(', ')})`);
  const caughtUpAt = Date.now();

  // The dead-letter topics hold the poison events and nothing else (judged on what this scenario added).
  const letters = (await deadLetters(kafka, namespace)).filter((letter) => !seenLetters.has(letter.id));
  for (const letter of letters) seenLetters.add(letter.id);
  const unexpected = letters.filter((letter) => !poisoned.has(letter.eventId));
  if (unexpected.length > 0) failures.push(`${unexpected.length} unexpected dead letter(s) on ${[...new Set(unexpected.map((l) => l.topic))].join(', ')}`);
  const expected = [...poisoned].filter((eventId) => !deadLettered.has(eventId));
  const missing = expected.filter((eventId) => !letters.some((letter) => letter.eventId === eventId));
  if (missing.length > 0) failures.push(`${missing.length} poison event(s) not on a dead-letter topic`);
  for (const letter of letters) if (poisoned.has(letter.eventId)) deadLettered.add(letter.eventId);

  if (load.serverErrors > 0) failures.push(`${load.serverErrors} answer(s) 5xx other than 503/504 (a fault showed as a bug)`);
  if (scenario.zeroFailures && load.failedAnswers > 0) failures.push(`${load.failedAnswers} answer(s) other than 2xx where none may fail`);
  return {
    name: scenario.name,
    guarantees: scenario.guarantees,
    offered: load.offered,
    accepted: load.accepted.size,
    refused: load.refused,
    statuses: load.statuses,
    readStatuses: load.readStatuses,
    samples: load.samples,
    serverErrors: load.serverErrors,
    failedAnswers: load.failedAnswers,
    zeroFailures: Boolean(scenario.zeroFailures),
    lost,
    stuck,
    stockMismatches,
    redelivered: redelivered + republished,
    settleSeconds: decidedAt ? seconds(Math.max(decidedAt, caughtUpAt) - recoveredAt) : null,
    failures,
  };
}

const statusList = (statuses) => Object.entries(statuses ?? {}).map(([status, count]) => `${status}×${count}`).join(' ');

function describe(result) {
  const statuses = statusList(result.statuses);
  const reads = Object.keys(result.readStatuses ?? {}).length ? `; reads ${statusList(result.readStatuses)}` : '';
  return (
    `offered ${result.offered}, accepted ${result.accepted}, refused ${result.refused} (${statuses}${reads}); lost ${result.lost}, ` +
    `stuck ${result.stuck}, duplicates absorbed ${result.redelivered}; settled in ${result.settleSeconds ?? '—'} s` +
    (result.unavailable ? `; fault point NOT AVAILABLE: ${result.unavailable}` : '') +
    (result.note ? `; ${result.note}` : '') +
    (Object.keys(result.samples ?? {}).length ? `\n[chaos]   first answers that failed: ${Object.entries(result.samples).map(([status, sample]) => `${status} ${sample}`).join(' | ')}` : '') +
    (result.failures.length ? `\n[chaos]   FAILED: ${result.failures.join('; ')}` : '; every invariant held')
  );
}

function tableRows(results, { cluster = false } = {}) {
  return results.map((r) => {
    const verdict = r.failures.length ? `**failed**: ${r.failures.join('; ')}` : 'held';
    const name = r.unavailable ? `${r.name} — fault point not available (${r.unavailable})` : r.name;
    // On the scaled stack every answer that was not 2xx is shown, orders and reads, by status.
    const failed = [r.statuses, r.readStatuses].flatMap((statuses) => Object.entries(statuses ?? {})).filter(([status]) => !/^2/.test(status));
    const answers = `${r.failedAnswers}${failed.length ? ` (${failed.map(([status, count]) => `${status}×${count}`).join(', ')})` : ''}${r.zeroFailures ? ', target 0' : ''}`;
    return (
      `| ${name} | ${r.offered} | ${r.accepted} | ${r.refused} | ${cluster ? `${answers} | ` : ''}${r.serverErrors} | ${r.lost} | ${r.stuck} | ` +
      `${r.redelivered} | ${r.settleSeconds === null ? '—' : `${r.settleSeconds} s`} | ${verdict}${cluster && r.note ? ` (${r.note})` : ''} | ${r.guarantees} |`
    );
  });
}

function tableHead({ cluster = false } = {}) {
  const failed = cluster ? ' answers not 2xx (orders and reads) |' : '';
  return [
    `| scenario | orders offered | accepted | refused (503) |${failed} 5xx bugs | lost | stuck | duplicates absorbed | time to settle | invariants | what guarantees it |`,
    `|---|---|---|---|${cluster ? '---|' : ''}---|---|---|---|---|---|---|`,
  ];
}

function printTable(results, options) {
  console.log(['', ...tableHead(options), ...tableRows(results, options), ''].join('\n'));
}

/** For `npm test`'s closing line: one test per scenario. */
function writeSummary(results) {
  const dir = process.env.JEST_SUMMARY_DIR;
  if (!dir) return;
  fs.mkdirSync(dir, { recursive: true });
  const failures = results
    .filter((r) => r.failures.length > 0)
    .map((r) => ({ where: 'scripts/chaos.mjs', test: r.name, reason: r.failures.join('; ') }));
  const counts = { passed: results.length - failures.length, failed: failures.length, skipped: 0, failures };
  fs.writeFileSync(path.join(dir, 'chaos.json'), JSON.stringify(counts));
}

async function environmentOf() {
  const client = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
  await client.connect();
  const { rows } = await client.query('show server_version');
  await client.end();
  return { cpus: `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'unknown'}`, node: process.version, postgres: rows[0].server_version };
}

/**
 * The tables go between the markers of docs/RELIABILITY.md (one pair for each stack); the text
 * around them is written by hand. A run of one stack only (--single, --cluster) leaves the other's.
 */
function writeReport({ results, clusterResults, startedAt, finishedAt, environment }) {
  const file = path.join(stack.ROOT, 'docs/RELIABILITY.md');
  const run =
    `Run of ${startedAt.toISOString()} (${seconds(finishedAt - startedAt)} s in all, build and stack start included) on ` +
    `${environment.cpus}; Node ${environment.node}, PostgreSQL ${environment.postgres}, Kafka 3.9.2. `;
  const load = `Load: ${RATE} orders/s offered through the gateway over 6 fresh pets per scenario (stock ${PETS.join(', ')}), 1–3 units each`;
  let report = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '# Reliability\n\n`npm run chaos` writes the tables below.\n';
  const replace = (marker, lines) => {
    const begin = `<!-- ${marker}:begin -->`;
    const end = `<!-- ${marker}:end -->`;
    if (!report.includes(begin)) report += `\n${begin}\n${end}\n`;
    report = `${report.slice(0, report.indexOf(begin))}${begin}\n${lines.join('\n')}\n${report.slice(report.indexOf(end))}`;
  };
  if (results.length) {
    replace('chaos', [`${run}${load}. Settle bound: ${SETTLE_SECONDS} s after recovery.`, '', ...tableHead(), ...tableRows(results)]);
  }
  if (clusterResults.length) {
    replace('chaos-cluster', [
      `${run}${load}, with a read of the pet and of its stock beside each order, through HAProxy. Settle bound: ${SETTLE_SECONDS} s after recovery.`,
      '',
      ...tableHead({ cluster: true }),
      ...tableRows(clusterResults, { cluster: true }),
    ]);
  }
  fs.writeFileSync(file, report);
  log('wrote docs/RELIABILITY.md');
}

main().catch((error) => {
  console.error(`[chaos] failed: ${error.stack ?? error.message}`);
  process.exit(1);
});
