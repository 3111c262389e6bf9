// `node scripts/bench.mjs gateway-cpu <main.js> [<main.js> …]`: the CPU time a gateway build spends
// per request, each build in turn (ROUNDS times, alternating) in front of stand-ins that answer
// from memory: reads of the catalog's over RPC_TRANSPORT (nats, the default, or tcp), and an
// order's placement (`place`, NATS only) of the orders service's. CPU time per request moves much
// less than requests per second on a busy machine, so builds compare even while other work runs.
// Knobs: N (requests per measurement, 20000), ROUNDS (2), REQUESTS (`category,pets`; `place` on
// request), PROF=<dir> (a V8 CPU profile per build, for `node scripts/bench.mjs cpu-profile-summary`).
import 'reflect-metadata';
import { type ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import autocannon = require('autocannon');
import { connect } from 'nats';
import { ensureNatsServer, installPackage, NATS_PORT, natsClientOptions, natsServer } from '@petstore/stack';
import { cpuSecondsOfStat } from './cpu-accounting';
import { catalogStandIn } from './gateway-cpu-catalog';

const N = Number(process.env.N ?? 20_000);
const ROUNDS = Number(process.env.ROUNDS ?? 2);
/** What a measurement may send: a read, or (`place`) an order's placement. */
const KNOWN_REQUESTS: { name: string; path: string; method: 'GET' | 'POST'; body?: string }[] = [
  { name: 'category', path: '/v1/categories/1', method: 'GET' },
  { name: 'pets', path: '/v1/pets?limit=20', method: 'GET' },
  { name: 'place', path: '/v1/store/orders', method: 'POST', body: JSON.stringify({ petId: 1, quantity: 1 }) },
];
const REQUESTS = KNOWN_REQUESTS.filter(({ name }) => (process.env.REQUESTS ?? 'category,pets').split(',').includes(name));
const RPC_PORT = 24_001;
const KEY = 'bench-key-0123456789';
const TRANSPORT = process.env.RPC_TRANSPORT ?? 'nats';
const SUBJECT_PREFIX = `gateway-cpu-${process.pid}.`;

/** The catalog's answers to the two reads, and to the readiness check, by command. */
export const ANSWERS: Record<string, unknown> = {
  'categories.get': { id: 1, name: 'Dogs', description: 'Good ones' },
  'pets.list': { items: Array.from({ length: 20 }, (_, i) => ({ id: i + 1, name: `Pet ${i}`, categoryId: 1, status: 'available' })), hasMore: true },
  'health.check': { ready: true },
};

/** The orders service's answer to a placement, by command. */
const ORDERS_ANSWERS: Record<string, unknown> = {
  'orders.place': { order: { id: 1, petId: 1, quantity: 1, status: 'placed', complete: false }, replayed: false },
  'health.check': { ready: true },
};

/**
 * A stand-in on NATS, as the service's queue group gets requests (`<prefix><service>.<cmd>`, Nest's
 * packets), straight from nats.js: the stand-in's own cost stays out of the way.
 */
async function natsStandIn(nats: ReturnType<typeof natsServer>, service: 'catalog' | 'orders', answers: Record<string, unknown>) {
  await ensureNatsServer(nats, () => installPackage('nats-server', 'nats-server'));
  // As the service's NATS user, which may serve each of its subjects, not a wildcard over them.
  const connection = await connect(natsClientOptions(nats.envOf(service)));
  for (const [cmd, answer] of Object.entries(answers)) {
    connection.subscribe(`${SUBJECT_PREFIX}${service}.${cmd}`, {
      queue: service,
      callback: (_error, msg) => {
        const { id } = JSON.parse(Buffer.from(msg.data).toString()) as { id: string };
        msg.respond(Buffer.from(JSON.stringify({ id, response: answer, isDisposed: true })));
      },
    });
  }
  return { close: () => connection.drain() };
}

/** User + system CPU of a process, in ms. */
const cpuMs = (pid: number | undefined) => cpuSecondsOfStat(fs.readFileSync(`/proc/${pid}/stat`, 'utf8')) * 1000;

async function startGateway(nats: ReturnType<typeof natsServer>, main: string, port: number, profileDir?: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []), path.resolve(main)], {
    env: {
      ...process.env,
      RPC_TRANSPORT: TRANSPORT,
      RPC_TCP_BENCH_ONLY: 'true',
      ...nats.envOf('gateway'),
      NATS_SUBJECT_PREFIX: SUBJECT_PREFIX,
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      HTTP_PORT: String(port),
      METRICS_PORT: String(port + 100),
      RATE_LIMIT_PER_SECOND: '0',
      CATALOG_RPC: `127.0.0.1:${RPC_PORT}`,
      ORDERS_RPC: `127.0.0.1:${RPC_PORT}`,
      INVENTORY_RPC: `127.0.0.1:${RPC_PORT}`,
      API_KEYS: JSON.stringify([{ name: 'bench', key: KEY, scopes: ['*'] }]),
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  for (;;) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/health/live`)).ok) return child;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export async function gatewayCpu(...builds: string[]): Promise<number> {
  if (builds.length === 0) throw new Error('usage: node scripts/bench.mjs gateway-cpu <main.js> [<main.js> …]');
  /** The bench's NATS server, with this run's prefix. */
  const nats = natsServer(NATS_PORT + 20_000, SUBJECT_PREFIX);
  const placing = REQUESTS.some(({ name }) => name === 'place');
  if (placing && TRANSPORT !== 'nats') throw new Error('gateway-cpu measures placements over NATS only');
  const catalog = TRANSPORT === 'nats' ? await natsStandIn(nats, 'catalog', ANSWERS) : await catalogStandIn(ANSWERS, RPC_PORT);
  const orders = placing ? await natsStandIn(nats, 'orders', ORDERS_ANSWERS) : undefined;
  const runs: { build: string; request: string; round: number; cpuMsPerRequest: number; requestsPerSecond: number; failed: number }[] = [];
  for (let round = 1; round <= ROUNDS; round += 1) {
    for (const [index, build] of builds.entries()) {
      const port = 24_100 + index;
      const child = await startGateway(nats, build, port, process.env.PROF && path.join(process.env.PROF, String(index)));
      for (const { name: request, path: url, method, body } of REQUESTS) {
        const headers = { authorization: `Bearer ${KEY}`, ...(body ? { 'content-type': 'application/json' } : {}) };
        const options = { url: `http://127.0.0.1:${port}${url}`, method, headers, connections: 16, ...(body ? { body } : {}) };
        await autocannon({ ...options, amount: 3000 });
        const before = cpuMs(child.pid);
        const result = await autocannon({ ...options, amount: N });
        runs.push({ build, request, round, cpuMsPerRequest: (cpuMs(child.pid) - before) / N, requestsPerSecond: Math.round(result.requests.average), failed: result.non2xx + result.errors });
      }
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
  }
  await catalog.close();
  await orders?.close();
  for (const build of builds) {
    for (const { name: request } of REQUESTS) {
      const mine = runs.filter((run) => run.build === build && run.request === request);
      const mean = mine.reduce((sum, run) => sum + run.cpuMsPerRequest, 0) / mine.length;
      const each = mine.map((run) => (run.cpuMsPerRequest * 1000).toFixed(1)).join(', ');
      console.log(`${build}  ${request}: ${(mean * 1000).toFixed(1)} µs CPU per request (${each}), failed ${mine.reduce((sum, run) => sum + run.failed, 0)}`);
    }
  }
  return 0;
}
