import { Migrator } from '@mikro-orm/migrations';
import { defineConfig, type Options } from '@mikro-orm/postgresql';
import type { Constructor, EntityClass, EntitySchema } from '@mikro-orm/core';
import type { Migration } from '@mikro-orm/migrations';
import { processLogger } from '@petstore/observability';

export interface NamedMigration {
  name: string;
  class: Constructor<Migration>;
}

export interface DatabaseSettings {
  url: string;
  entities: (EntityClass<unknown> | EntitySchema)[];
  /** Listed explicitly: the apps are webpack bundles, so there is no folder to scan. */
  migrations: NamedMigration[];
  /** The most connections the pool opens; the service's DATABASE_POOL_MAX. */
  poolMax?: number;
}

export const DEFAULT_POOL_MAX = 10;

export function databaseOptions({ url, entities, migrations, poolMax = DEFAULT_POOL_MAX }: DatabaseSettings): Options {
  return defineConfig({
    clientUrl: url,
    entities,
    extensions: [Migrator],
    // Every unit of work forks the EntityManager; a shared identity map would leak state between requests.
    allowGlobalContext: false,
    // Entities declare their column types; skipping reflection keeps start-up fast and bundle-safe.
    // A service's tables that no entity describes (the outbox, the consumer positions) are SQL's alone.
    discovery: { requireEntitiesArray: true, warnWhenNoEntities: false },
    pool: { min: 1, max: poolMax },
    // Creating the database is the job of the explicit `migrate` step, not of every boot.
    ensureDatabase: false,
    // Migration progress and MikroORM's warnings are lines of the process's logger: JSON, no colour codes.
    logger: (message) => processLogger().info({ context: 'mikro-orm' }, message),
    colors: false,
    migrations: {
      migrationsList: migrations,
      tableName: 'mikro_orm_migrations',
      transactional: true,
      allOrNothing: true,
      snapshot: false,
    },
    debug: false,
  });
}

export function databaseName(url: string): string {
  return decodeURIComponent(new URL(url).pathname.slice(1));
}
