import { readConfig, type Env } from '@petstore/config';
import type { NatsIdentity } from '@petstore/contracts';
import { assertTestDatabaseName, databaseName } from '@petstore/database';
import { rpcTransportConfigShape } from '@petstore/rpc';
import { builtAppMain, launch } from '@petstore/launcher';
import { existsSync } from 'node:fs';
import { Client } from 'pg';
import { natsIdentityEnv } from './nats-identity';
import { connectRpcClient, type RpcTestClient } from './rpc-test-client';
import { serviceTestEnv } from './service-env';

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
  const main = builtAppMain(app);
  if (!existsSync(main)) throw new Error(`${main} is missing: build it with NX_DAEMON=false npx nx build ${app}`);
  const { variables, httpPort, rpcPort } = await serviceTestEnv({ namespace, databaseUrl, logLevel: 'warn', env });
  // The service connects to NATS as itself; the test's client as the gateway does.
  const processEnv = { ...process.env, ...natsIdentityEnv(app as NatsIdentity), ...variables };

  if (resetDatabase) {
    await emptyDatabase(databaseUrl);
    const migration = launch(main, { args: ['migrate'], env: processEnv });
    const code = await migration.exited();
    if (code !== 0) throw new Error(`${app} migrate exited with ${code}:\n${migration.outputTail()}`);
  }

  const service = launch(main, { env: processEnv });
  const stop = () => service.stop();
  const database = new Client({ connectionString: databaseUrl });
  let client: RpcTestClient;
  try {
    await service.ready(`http://127.0.0.1:${httpPort}/health/ready`);
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
