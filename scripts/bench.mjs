// `npm run bench`: what the gateway costs on the read path, how fast an order is decided
// on the write path, and each process's memory — measured side by side in one run and
// written to docs/BENCHMARKS.md (raw figures in docs/bench/).
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import stack from './lib/stack.cjs';
import rpc from './bench/rpc-load.cjs';

const { ROOT, SERVICES, ensurePostgres, ensureKafka, build, stackLayout, dropDatabases, runMigrations, startStack } = stack;

const READ_SECONDS = Number(process.env.BENCH_READ_SECONDS ?? 10);
const WRITE_SECONDS = Number(process.env.BENCH_WRITE_SECONDS ?? 20);
const RATES = (process.env.BENCH_RATES ?? '100,250,500').split(',').map(Number);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const ORDER_PETS = 30;
const STOCK_PER_PET = 1_000_000;
const API_KEY = `bench-${randomBytes(12).toString('hex')}`;
const FLOOR_PORT = 23_999;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const round = (value, digits = 1) => Number(value.toFixed(digits));
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

  const layout = stackLayout({ offset: 20_000, databaseSuffix: '_bench', namespace: `bench-${randomBytes(4).toString('hex')}.` });
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
  const running = await startStack(layout, { extraEnv, output: fs.createWriteStream(path.join(ROOT, 'tmp/bench-stack.log')) });
  const gateway = layout.urls.gateway;
  const headers = { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' };
  const call = async (method, url, body) => {
    const response = await fetch(`${gateway}${url}`, { method, headers, body: body && JSON.stringify(body) });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${url} → ${response.status} ${text}`);
    return text ? JSON.parse(text) : undefined;
  };

  const results = { startedAt: new Date().toISOString(), settings: { READ_SECONDS, WRITE_SECONDS, RATES, CONNECTIONS } };
  let floor;
  try {
    log('seeding');
    const category = await call('POST', '/v1/categories', { name: 'Bench dogs', description: 'Seeded by the benchmark' });
    const pets = [];
    for (let i = 0; i < 200; i += 1) pets.push(await call('POST', '/v1/pets', { name: `Bench pet ${i}`, categoryId: category.id }));
    const orderPets = pets.slice(0, ORDER_PETS);
    for (const pet of orderPets) await call('PUT', `/v1/store/inventory/${pet.id}`, { quantity: STOCK_PER_PET });
    await sleep(2000);

    results.memoryAtRest = Object.fromEntries(Object.entries(running.processes).map(([name, child]) => [name, rssMiB(child.pid)]));

    log('read path');
    floor = fork(path.join(ROOT, 'scripts/bench/floor-server.cjs'), {
      env: { ...process.env, PORT: String(FLOOR_PORT), DATABASE_URL: layout.envs.catalog.DATABASE_URL },
    });
    await new Promise((resolve) => floor.once('message', resolve));
    const reads = [
      { name: 'GET /v1/categories/{id}', gateway: `/v1/categories/${category.id}`, floor: `/categories/${category.id}`,
        pattern: { cmd: 'categories.get' }, payload: () => ({ requestId: 'bench', id: String(category.id) }) },
      { name: 'GET /v1/pets?limit=20', gateway: '/v1/pets?limit=20', floor: '/pets?limit=20',
        pattern: { cmd: 'pets.list' }, payload: () => ({ requestId: 'bench', limit: 20, after: 0 }) },
    ];
    results.reads = [];
    for (const read of reads) {
      const viaGateway = await cannon({ url: `${gateway}${read.gateway}`, headers, warmup: true });
      const direct = await rpc.rpcLoad({
        host: '127.0.0.1', port: Number(layout.envs.catalog.RPC_PORT), pattern: read.pattern, payload: read.payload,
        connections: CONNECTIONS, durationSeconds: READ_SECONDS,
      });
      const floorRun = await cannon({ url: `http://127.0.0.1:${FLOOR_PORT}${read.floor}`, warmup: true });
      results.reads.push({
        name: read.name,
        gateway: viaGateway,
        direct: { requestsPerSecond: round(direct.requestsPerSecond), p50: round(direct.p50, 2), p99: round(direct.p99, 2), errors: direct.errors },
        floor: floorRun,
        gatewayToDirect: round(viaGateway.requestsPerSecond / direct.requestsPerSecond, 2),
        gatewayToFloor: round(viaGateway.requestsPerSecond / floorRun.requestsPerSecond, 2),
      });
    }

    log('write path');
    results.writes = [];
    const peakRss = Object.fromEntries(SERVICES.concat('gateway').map((name) => [name, 0]));
    const sampler = setInterval(() => {
      for (const [name, child] of Object.entries(running.processes)) peakRss[name] = Math.max(peakRss[name], rssMiB(child.pid) ?? 0);
    }, 250);
    let next = 0;
    const nextPetId = () => orderPets[(next++) % orderPets.length].id;
    for (const rate of RATES) {
      const decisionLatencies = [];
      let sampling = true;
      const sampleDecisions = (async () => {
        while (sampling) {
          const placedAt = performance.now();
          const order = await call('POST', '/v1/store/orders', { petId: nextPetId(), quantity: 1 });
          let current = order;
          while (current.status === 'placed') {
            await sleep(2);
            current = await call('GET', `/v1/store/orders/${order.id}`);
          }
          decisionLatencies.push(performance.now() - placedAt);
          await sleep(100);
        }
      })();
      const placement = await cannon({
        url: `${gateway}/v1/store/orders`,
        headers,
        duration: WRITE_SECONDS,
        overallRate: rate,
        connections: Math.max(CONNECTIONS, Math.ceil(rate / 10)),
        requests: [{ method: 'POST', setupRequest: (request) => ({ ...request, body: JSON.stringify({ petId: nextPetId(), quantity: 1 }) }) }],
      });
      sampling = false;
      await sampleDecisions;
      decisionLatencies.sort((a, b) => a - b);
      results.writes.push({
        offeredRate: rate,
        achievedRate: placement.requestsPerSecond,
        created: placement.ok,
        failed: placement.failed,
        placementP50: placement.p50,
        placementP99: placement.p99,
        approvalSamples: decisionLatencies.length,
        approvalP50: round(rpc.percentile(decisionLatencies, 50), 1),
        approvalP99: round(rpc.percentile(decisionLatencies, 99), 1),
      });
    }
    clearInterval(sampler);
    results.memoryUnderWriteLoad = peakRss;

    log('checking stock against approved orders');
    results.stockCheck = await checkStock(call, orderPets);
  } finally {
    floor?.kill('SIGTERM');
    await running.stop();
  }
  results.environment = await environment();
  writeReport(results);
}

async function cannon({ url, headers = {}, duration = READ_SECONDS, overallRate, connections = CONNECTIONS, requests, warmup = false }) {
  const options = { url, headers, connections, duration, overallRate, requests, pipelining: 1 };
  if (warmup) await autocannon({ ...options, duration: 3 });
  const result = await autocannon(options);
  return {
    requestsPerSecond: round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    ok: result['2xx'],
    failed: result.non2xx + result.errors + result.timeouts,
  };
}

/** Every approved order took its units exactly once: stock + approved units = what was stocked. */
async function checkStock(call, pets) {
  const deadline = Date.now() + 60_000;
  while ((await call('GET', '/v1/store/orders?status=placed&limit=1')).length > 0) {
    if (Date.now() > deadline) throw new Error('orders were still undecided a minute after the load ended');
    await sleep(200);
  }
  let approvedUnits = 0;
  let stock = 0;
  let mismatches = 0;
  for (const pet of pets) {
    let units = 0;
    let after = 0;
    for (;;) {
      const page = await call('GET', `/v1/store/orders?petId=${pet.id}&status=approved&limit=100&after=${after}`);
      units += page.reduce((sum, order) => sum + order.quantity, 0);
      if (page.length < 100) break;
      after = page[page.length - 1].id;
    }
    const item = await call('GET', `/v1/store/inventory/${pet.id}`);
    if (item.quantity + units !== STOCK_PER_PET) mismatches += 1;
    approvedUnits += units;
    stock += item.quantity;
  }
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

/**
 * The figures go between the markers of docs/BENCHMARKS.md; the reading of them around the
 * markers is written by hand and survives the next run.
 */
function writeReport(results) {
  const day = results.startedAt.slice(0, 10);
  const rawDir = path.join(ROOT, 'docs/bench');
  fs.mkdirSync(rawDir, { recursive: true });
  const rawFile = path.join(rawDir, `raw-${day}.json`);
  fs.writeFileSync(rawFile, `${JSON.stringify(results, null, 2)}\n`);

  const env = results.environment;
  const s = results.stockCheck;
  const figures = [
    `Run of ${results.startedAt} on ${env.cpus}, ${env.memoryGiB} GiB; Node ${env.node}, PostgreSQL ${env.postgres}, ` +
      `Kafka ${env.kafka}, NestJS ${env.nestjs}, MikroORM ${env.mikroOrm}, kafkajs ${env.kafkajs}. ` +
      `Reads: ${READ_SECONDS} s per run after a 3 s warm-up, ${CONNECTIONS} connections. Writes: ${WRITE_SECONDS} s per rate. ` +
      `Raw figures: [${path.relative(path.join(ROOT, 'docs'), rawFile)}](${path.relative(path.join(ROOT, 'docs'), rawFile)}).`,
    '',
    '### Read path',
    '',
    '| query | served by | requests/s | p50 ms | p99 ms |',
    '|---|---|---|---|---|',
    ...results.reads.flatMap((r) => [
      `| ${r.name} | gateway (HTTP → TCP → catalog) | ${r.gateway.requestsPerSecond} | ${r.gateway.p50} | ${r.gateway.p99} |`,
      `| | catalog direct (TCP) | ${r.direct.requestsPerSecond} | ${r.direct.p50} | ${r.direct.p99} |`,
      `| | floor (node:http + pg, same SQL) | ${r.floor.requestsPerSecond} | ${r.floor.p50} | ${r.floor.p99} |`,
      `| | gateway / direct | **${r.gatewayToDirect}** | | |`,
      `| | gateway / floor | **${r.gatewayToFloor}** | | |`,
    ]),
    '',
    '### Write path: `POST /v1/store/orders`',
    '',
    '| offered/s | achieved/s | 201s | failed | 201 p50 ms | 201 p99 ms | approval samples | placed→approved p50 ms | placed→approved p99 ms |',
    '|---|---|---|---|---|---|---|---|---|',
    ...results.writes.map(
      (w) =>
        `| ${w.offeredRate} | ${w.achievedRate} | ${w.created} | ${w.failed} | ${w.placementP50} | ${w.placementP99} | ` +
        `${w.approvalSamples} | ${w.approvalP50} | ${w.approvalP99} |`,
    ),
    '',
    `Stock check after the load: ${s.pets} pets stocked with ${s.stocked} units, ${s.approvedUnits} units in approved orders, ` +
      `${s.remaining} left, ${s.mismatches} pets where stock + approved ≠ stocked — **${s.exact ? 'exact' : 'NOT exact'}**.`,
    '',
    '### Memory (RSS, MiB)',
    '',
    '| process | at rest | peak under write load |',
    '|---|---|---|',
    ...Object.keys(results.memoryAtRest).map(
      (name) => `| ${name} | ${results.memoryAtRest[name]} | ${results.memoryUnderWriteLoad[name]} |`,
    ),
  ].join('\n');

  const reportFile = path.join(ROOT, 'docs/BENCHMARKS.md');
  const existing = fs.existsSync(reportFile)
    ? fs.readFileSync(reportFile, 'utf8')
    : '# Benchmarks\n\n`npm run bench` writes the figures below.\n\n<!-- bench:begin -->\n<!-- bench:end -->\n';
  const begin = existing.indexOf('<!-- bench:begin -->');
  const end = existing.indexOf('<!-- bench:end -->');
  const report = `${existing.slice(0, begin)}<!-- bench:begin -->\n${figures}\n${existing.slice(end)}`;
  fs.writeFileSync(reportFile, report);
  log(`wrote docs/BENCHMARKS.md and ${path.relative(ROOT, rawFile)}`);
}

main().catch((error) => {
  console.error(`[bench] failed: ${error.stack ?? error.message}`);
  process.exit(1);
});
