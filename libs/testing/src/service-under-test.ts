import { MikroORM, type Options } from '@mikro-orm/postgresql';
import type { DynamicModule, INestApplication } from '@nestjs/common';
import { readConfig, type ConfigShape, type Env } from '@petstore/config';
import type { RpcService } from '@petstore/contracts';
import { prepareTestDatabase } from '@petstore/database';
import { bootstrapService, SERVICE_NAME, type ServiceConfig } from '@petstore/service-kit';
import { natsIdentityEnv, testTransport } from './nats-identity';
import { connectRpcClient, type RpcTestClient } from './rpc-test-client';
import { serviceTestEnv } from './service-env';

/**
 * What a test needs to know to start one of the services in-process. Libs cannot import
 * apps, so each service's suite hands its own module, config shape and database options in.
 */
export interface ServiceRecipe<C extends ServiceConfig> {
  /** Who the service is: its NATS user, subjects and queue group. */
  service: RpcService;
  configShape: ConfigShape<C>;
  appModule(config: C): DynamicModule;
  databaseOptions(url: string): Options;
  /** Resolves once the service's Kafka consumer holds its partitions (MessagingService.whenConsumerJoined). */
  whenConsumerJoined(app: INestApplication): Promise<void>;
}

export interface ServiceTestOptions {
  namespace: string;
  databaseUrl: string;
  /** Drop and re-migrate the database first (not for a second replica sharing it). */
  resetDatabase?: boolean;
  /** More variables, e.g. CATALOG_RPC. */
  env?: Env;
  /** Resolve only once the consumer holds partitions (default), or right after start-up. */
  waitForConsumer?: boolean;
  /** LOG_LEVEL unless the test run sets one; `error` by default. */
  logLevel?: string;
}

/** A service as the gateway sees it: the real process wiring on free ports, reached over its RPC transport. */
export interface RunningService<C extends ServiceConfig> extends Pick<RpcTestClient, 'send' | 'refusal'> {
  config: C;
  app: INestApplication;
  /** Rows of a query (`?` placeholders) against the service's own database, for asserting what was written. */
  sql<T = Record<string, unknown>>(query: string, params?: unknown[]): Promise<T[]>;
  close(): Promise<void>;
}

/**
 * Starts a service in this process the way its main.ts does (bootstrapService: RPC transport,
 * health HTTP server, Kafka relay and consumer), against a freshly migrated test database.
 */
export async function startServiceForTest<C extends ServiceConfig>(
  recipe: ServiceRecipe<C>,
  { namespace, databaseUrl, resetDatabase = true, env, waitForConsumer = true, logLevel = 'error' }: ServiceTestOptions,
): Promise<RunningService<C>> {
  const { variables, rpcPort } = await serviceTestEnv({ namespace, databaseUrl, logLevel, env });
  const config = readConfig(recipe.configShape, { ...natsIdentityEnv(recipe.service), ...variables });
  if (resetDatabase) await prepareTestDatabase(recipe.databaseOptions(config.databaseUrl));
  const app = await bootstrapService(recipe.appModule(config), config);
  if (waitForConsumer) await recipe.whenConsumerJoined(app);
  // The test sends as the gateway does, with the gateway's NATS user.
  const client = await connectRpcClient(testTransport('gateway', config.natsSubjectPrefix, variables), app.get<string>(SERVICE_NAME, { strict: false }), config.host, rpcPort);
  const orm = app.get(MikroORM);

  return {
    config,
    app,
    send: client.send,
    refusal: client.refusal,
    sql: (query, params = []) => orm.em.getConnection().execute(query, params),
    async close() {
      await client.close();
      await app.close();
    },
  };
}
