import type { Env } from '@petstore/config';
import { MessagingService } from '@petstore/messaging';
import { startServiceForTest, testDatabaseUrl, type RunningService, type ServiceRecipe } from '@petstore/testing';
import { AppModule } from '../app.module';
import { catalogConfigShape, type CatalogConfig } from '../config';
import { catalogDatabaseOptions } from '../mikro-orm.config';

export const TEST_DATABASE_URL = testDatabaseUrl('catalog');

const catalogRecipe: ServiceRecipe<CatalogConfig> = {
  service: 'catalog',
  configShape: catalogConfigShape,
  appModule: (config) => AppModule.forRoot(config),
  databaseOptions: catalogDatabaseOptions,
  whenConsumerJoined: (app) => app.get(MessagingService).whenConsumerJoined(),
};

/**
 * The catalog as the gateway sees it, against a freshly migrated test database and a Kafka
 * namespace no other run shares.
 */
export interface CatalogTestApp extends RunningService<CatalogConfig> {
  /** One number from a SQL query, for asserting what was (not) written. */
  count(sql: string, params?: unknown[]): Promise<number>;
}

/** `env`: more variables for the service, e.g. DATABASE_POOL_MAX. */
export async function startCatalog(namespace: string, env?: Env): Promise<CatalogTestApp> {
  // Topics provisioned, relay running, consumer group joined: events flow from the first test on.
  const catalog = await startServiceForTest(catalogRecipe, { namespace, databaseUrl: TEST_DATABASE_URL, logLevel: 'warn', env });
  return {
    ...catalog,
    async count(sql, params = []) {
      const [row] = await catalog.sql<{ count: string | number }>(sql, params);
      return Number(row?.count);
    },
  };
}
