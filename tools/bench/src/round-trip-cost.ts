// What one round trip between processes costs this host's CPU at a steady rate:
// `node scripts/bench.mjs round-trip-cost [rates=100,250,1000,4000] [seconds=5]`.
// A pipeline pays one of these for every hop of an order that finds the other side asleep,
// whatever its code does; the figure moves from host to host, so read the saga's CPU per order
// at a fixed rate against it.
import { spawn, type ChildProcess } from 'node:child_process';
import * as net from 'node:net';
import { once } from 'node:events';
import { Client } from 'pg';
import { cpuSpent, cpuUsPerRequest } from './cpu-accounting';
import { requestCount, sendEvenly } from './paced-schedule';
import { ADMIN_DATABASE_URL } from './knobs';
import { cpuOf, cpuSnapshot } from './proc-cpu';
import { LOW_RATE } from './saga-targets';

/** What a full run measures: the saga targets' low rate, and one at which nothing has time to sleep. */
export const ROUND_TRIP_RATES = [LOW_RATE, 4000];

/**
 * A process that echoes what each connection sends; it writes its port. As text: console.log would
 * colour a number when FORCE_COLOR is set, as Nx sets it for its tasks.
 */
const ECHO_SERVER = `require('node:net').createServer((s) => s.on('data', (d) => s.write(d))).listen(0, '127.0.0.1', function () { process.stdout.write(this.address().port + '\\n'); });`;

export interface RoundTripCost {
  rate: number;
  /** Two idle Node processes, 100 bytes each way over one loopback TCP connection: both processes' CPU. */
  echoUs: number;
  /** One single-row INSERT in its own transaction: the PostgreSQL backend's CPU, and the client's. */
  commitUs: { postgres: number; client: number };
}

/** The echo process, and its port once it listens. */
function startEcho(): { child: ChildProcess; port: Promise<number> } {
  const child = spawn(process.execPath, ['-e', ECHO_SERVER], { stdio: ['ignore', 'pipe', 'inherit'] });
  const written = once(child.stdout, 'data').then(([chunk]: Buffer[]) => String(chunk));
  const exited = once(child, 'exit').then(([code]) => Promise.reject(new Error(`the echo process ended (${code}) before it listened`)));
  const port = Promise.race([written, exited]).then((text) => {
    const port = Number(text.trim());
    if (!Number.isInteger(port)) throw new Error(`the echo process wrote ${JSON.stringify(text)}, not its port`);
    return port;
  });
  return { child, port };
}

/** CPU µs per echoed message, both processes; every message is answered before it returns. */
export async function echoCost(rate: number, seconds: number): Promise<number> {
  const echo = startEcho();
  try {
    const socket = net.connect({ port: await echo.port, host: '127.0.0.1', noDelay: true });
    try {
      await once(socket, 'connect');
      return await echoed(socket, echo.child, rate, seconds);
    } finally {
      socket.destroy();
    }
  } finally {
    echo.child.kill();
  }
}

async function echoed(socket: net.Socket, child: ChildProcess, rate: number, seconds: number): Promise<number> {
  const message = Buffer.alloc(100, 1);
  const count = requestCount(rate, seconds);
  let received = 0;
  const allBack = new Promise<void>((resolve) =>
    socket.on('data', (data) => {
      received += data.length;
      if (received === count * message.length) resolve();
    }),
  );
  const before = cpuOf(process.pid) + cpuOf(child.pid);
  await sendEvenly(rate, count, () => socket.write(message));
  await allBack;
  return Math.round(((cpuOf(process.pid) + cpuOf(child.pid) - before) * 1e6) / count);
}

/** CPU µs per single-row autocommitted INSERT, PostgreSQL's backend and this process. */
async function commitCost(databaseUrl: string, rate: number, seconds: number): Promise<RoundTripCost['commitUs']> {
  const client = new Client({ connectionString: databaseUrl, application_name: 'round-trip-cost' });
  await client.connect();
  try {
    await client.query('create temporary table round_trip (n int)');
    const count = requestCount(rate, seconds);
    const before = cpuSnapshot({});
    // One connection runs one statement at a time: a statement due while the last runs follows it.
    let previous: Promise<unknown> = Promise.resolve();
    await Promise.all(await sendEvenly(rate, count, (i) => (previous = previous.then(() => client.query('insert into round_trip values ($1)', [i])))));
    const perStatement = cpuUsPerRequest(cpuSpent(before, cpuSnapshot({})), count);
    return { postgres: perStatement.postgres ?? 0, client: perStatement['load generator'] ?? 0 };
  } finally {
    await client.end();
  }
}

/** Each rate in turn: the echo, then the commit, `seconds` each. */
export async function roundTripCosts(rates: number[], seconds: number, databaseUrl: string): Promise<RoundTripCost[]> {
  const costs: RoundTripCost[] = [];
  for (const rate of rates) costs.push({ rate, echoUs: await echoCost(rate, seconds), commitUs: await commitCost(databaseUrl, rate, seconds) });
  return costs;
}

export async function roundTripCost(ratesArg = '100,250,1000,4000', secondsArg = '5'): Promise<number> {
  const rates = ratesArg.split(',').map(Number);
  const seconds = Number(secondsArg);
  if (rates.some((rate) => !(rate > 0)) || !(seconds > 0)) {
    console.error('usage: node scripts/bench.mjs round-trip-cost [rates=100,250,1000,4000] [seconds=5]');
    return 2;
  }
  const databaseUrl = process.env.DATABASE_URL ?? ADMIN_DATABASE_URL;
  console.log('| messages/s | echo between two processes, CPU µs per round trip | single-row commit: PostgreSQL µs | the client µs |');
  console.log('|---|---|---|---|');
  for (const { rate, echoUs, commitUs } of await roundTripCosts(rates, seconds, databaseUrl)) {
    console.log(`| ${rate} | ${echoUs} | ${commitUs.postgres} | ${commitUs.client} |`);
  }
  return 0;
}
