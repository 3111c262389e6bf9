import { MikroORM, type Options } from '@mikro-orm/postgresql';
import type { DynamicModule, INestApplication } from '@nestjs/common';
import { ClientProxyFactory, Transport, type ClientProxy } from '@nestjs/microservices';
import { readConfig, type ConfigShape, type Env } from '@petstore/config';
import type { RpcErrorBody } from '@petstore/contracts';
import { prepareTestDatabase } from '@petstore/database';
import { MessagingService } from '@petstore/messaging';
import { bootstrapService, type ServiceConfig } from '@petstore/service-kit';
import { testKafkaBrokers } from '@petstore/testing';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { firstValueFrom } from 'rxjs';

/** What a test needs to know to start one of the services in-process. */
export interface ServiceRecipe<C extends ServiceConfig> {
  configShape: ConfigShape<C>;
  appModule(config: C): DynamicModule;
  databaseOptions(url: string): Options;
}

export interface StartOptions {
  namespace: string;
  databaseUrl: string;
  /** Drop and re-migrate the database first (not for a second replica sharing it). */
  resetDatabase?: boolean;
  /** More variables, e.g. CATALOG_RPC. */
  env?: Env;
  /** Resolve only once the consumer holds partitions (default), or right after start-up. */
  waitForConsumer?: boolean;
}

/** A service as the gateway sees it: the real process wiring on free ports, reached over TCP. */
export interface RunningService<C extends ServiceConfig> {
  config: C;
  app: INestApplication;
  /** Sends a message and resolves with the reply; rejects with the RPC error body. */
  send<T>(pattern: { cmd: string }, payload: object): Promise<T>;
  /** Sends a message that must fail and resolves with its RPC error body. */
  refusal(pattern: { cmd: string }, payload: object): Promise<RpcErrorBody>;
  /** Rows of a query against the service's own database, for asserting what was written. */
  sql<T = Record<string, unknown>>(query: string, params?: unknown[]): Promise<T[]>;
  close(): Promise<void>;
}

export async function startService<C extends ServiceConfig>(
  recipe: ServiceRecipe<C>,
  { namespace, databaseUrl, resetDatabase = true, env = {}, waitForConsumer = true }: StartOptions,
): Promise<RunningService<C>> {
  const [httpPort, rpcPort] = [await freePort(), await freePort()];
  const config = readConfig(recipe.configShape, {
    NODE_ENV: 'test',
    LOG_LEVEL: process.env['LOG_LEVEL'] ?? 'error',
    HTTP_PORT: String(httpPort),
    RPC_PORT: String(rpcPort),
    DATABASE_URL: databaseUrl,
    KAFKA_BROKERS: testKafkaBrokers().join(','),
    KAFKA_NAMESPACE: namespace,
    ...env,
  });
  if (resetDatabase) await prepareTestDatabase(recipe.databaseOptions(config.databaseUrl));
  const app = await bootstrapService(recipe.appModule(config), config);
  if (waitForConsumer) await app.get(MessagingService).whenConsumerJoined();
  const client: ClientProxy = ClientProxyFactory.create({
    transport: Transport.TCP,
    options: { host: config.host, port: rpcPort },
  });
  await client.connect();
  const orm = app.get(MikroORM);

  const send = <T>(pattern: { cmd: string }, payload: object) =>
    firstValueFrom(client.send<T>(pattern, { requestId: randomUUID(), ...payload }));

  return {
    config,
    app,
    send,
    async refusal(pattern, payload) {
      let reply: unknown;
      try {
        reply = await send<unknown>(pattern, payload);
      } catch (error) {
        return error as RpcErrorBody;
      }
      throw new Error(`Expected ${pattern.cmd} to fail, it answered ${JSON.stringify(reply)}`);
    },
    sql: (query, params = []) => orm.em.getConnection().execute(query, params),
    async close() {
      client.close();
      await app.close();
    },
  };
}

/** `host:port` of a running service's TCP transport, for another service's *_RPC variable. */
export function rpcAddress(service: RunningService<ServiceConfig>): string {
  return `${service.config.host}:${service.config.rpcPort}`;
}

/** A port nothing listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/**
 * Retries `check` until it stops throwing: for state that other processes reach
 * asynchronously (a consumer applying an event), instead of sleeping a fixed time.
 */
export async function eventually<T>(check: () => Promise<T> | T, timeoutMs = 15_000, intervalMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  }
}
