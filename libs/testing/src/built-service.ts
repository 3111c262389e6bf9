import { readConfig, type Env } from '@petstore/config';
import type { NatsIdentity } from '@petstore/contracts';
import { assertTestDatabaseName, databaseName } from '@petstore/database';
import { rpcTransportConfigShape } from '@petstore/rpc';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Client } from 'pg';
import { natsIdentityEnv } from './nats-identity';
import { connectRpcClient, type RpcTestClient } from './rpc-test-client';
import { serviceTestEnv } from './service-env';

const WORKSPACE_ROOT = resolve(__dirname, '../../..');
const OUTPUT_LINES_KEPT = 40;

export interface BuiltServiceOptions {
  namespace: string;
  databaseUrl: string;
  /** Empty the database and run the service's own `migrate` step first (not for a second replica). */
  resetDatabase?: boolean;
  env?: Env;
}

/** Another service, run as its own process from its built bundle, reached over RPC as the gateway does. */
export interface BuiltService extends Pick<RpcTestClient, 'send' | 'refusal'> {
  /** Its RPC_PORT, for CATALOG_RPC when RPC_TRANSPORT=tcp (over NATS the suite's namespace finds it). */
  rpcAddress: string;
  /** Its HTTP server: the health endpoints and GET /metrics (this replica's own counts). */
  httpUrl: string;
  /** Rows of a query (`?` placeholders) against the service's database, for asserting what was written. */
  sql<T = Record<string, unknown>>(query: string, params?: unknown[]): Promise<T[]>;
  /** SIGTERM, as a platform would; the process finishes its work and exits. */
  stop(): Promise<void>;
}

/**
 * Starts `dist/apps/<app>/main.js` (built by `nx build <app>`; make the suite's `test` target
 * depend on that build). Services never import each other, tests included: a test that needs
 * another service runs it the way it runs in production, as a separate process.
 */
export async function startBuiltService(
  app: string,
  { namespace, databaseUrl, resetDatabase = true, env }: BuiltServiceOptions,
): Promise<BuiltService> {
  const main = join(WORKSPACE_ROOT, 'dist/apps', app, 'main.js');
  if (!existsSync(main)) throw new Error(`${main} is missing: build it with NX_DAEMON=false npx nx build ${app}`);
  const { variables, httpPort, rpcPort } = await serviceTestEnv({ namespace, databaseUrl, logLevel: 'warn', env });
  // The service connects to NATS as itself; the test's client as the gateway does.
  const processEnv = { ...process.env, ...natsIdentityEnv(app as NatsIdentity), ...variables };

  if (resetDatabase) {
    await emptyDatabase(databaseUrl);
    const migration = run(app, main, ['migrate'], processEnv);
    const code = await new Promise<number | null>((done) => migration.child.once('exit', done));
    if (code !== 0) throw new Error(`${app} migrate exited with ${code}:\n${migration.output()}`);
  }

  const service = run(app, main, [], processEnv);
  const stop = () => terminate(service.child);
  const database = new Client({ connectionString: databaseUrl });
  let client: RpcTestClient;
  try {
    await waitUntilReady(`http://127.0.0.1:${httpPort}/health/ready`, service.child, service.output);
    await database.connect();
    client = await connectRpcClient(readConfig(rpcTransportConfigShape, { ...processEnv, ...natsIdentityEnv('gateway') }), app, '127.0.0.1', rpcPort);
  } catch (error) {
    await stop();
    await database.end().catch(() => undefined);
    throw error;
  }

  return {
    rpcAddress: `127.0.0.1:${rpcPort}`,
    httpUrl: `http://127.0.0.1:${httpPort}`,
    send: client.send,
    refusal: client.refusal,
    async sql<T>(query: string, params: unknown[] = []) {
      // `?` placeholders, as in the in-process service (MikroORM's raw queries).
      let index = 0;
      const text = query.replace(/\?/g, () => `$${++index}`);
      return (await database.query(text, params)).rows as T[];
    },
    async stop() {
      await client.close();
      await stop();
      await database.end().catch(() => undefined);
    },
  };
}

/** Drops and re-creates schema `public`; the service's `migrate` step then builds it (and creates a missing database). */
async function emptyDatabase(databaseUrl: string): Promise<void> {
  assertTestDatabaseName(databaseName(databaseUrl));
  const client = new Client({ connectionString: databaseUrl });
  try {
    await client.connect();
  } catch (error) {
    if ((error as { code?: string }).code === '3D000') return; // no database yet
    throw error;
  }
  try {
    await client.query('drop schema if exists public cascade; create schema public;');
  } finally {
    await client.end();
  }
}

function run(app: string, main: string, args: string[], env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, [main, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  const keep = (chunk: Buffer) => {
    lines.push(...chunk.toString('utf8').split('\n').filter(Boolean).map((line) => `[${app}] ${line}`));
    lines.splice(0, Math.max(0, lines.length - OUTPUT_LINES_KEPT));
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  // A crashed test run must not leave services behind.
  const kill = () => child.kill('SIGKILL');
  process.once('exit', kill);
  child.once('exit', () => process.removeListener('exit', kill));
  return { child, output: () => lines.join('\n') };
}

async function waitUntilReady(url: string, child: ChildProcess, output: () => string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${url}: the process exited with ${child.exitCode}:\n${output()}`);
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(1000) });
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} did not answer 200 within ${timeoutMs / 1000} s:\n${output()}`);
}

function terminate(child: ChildProcess, timeoutMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((done) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      done();
    });
    child.kill('SIGTERM');
  });
}
