import type { Options } from '@mikro-orm/postgresql';
import { databaseOptions, type NamedMigration } from '@petstore/database';
import { messagingMigrations } from '@petstore/messaging';
import { Category } from './categories/category.entity';
import { Migration20261122010000_catalog } from './migrations/Migration20261122010000_catalog';
import { Pet } from './pets/pet.entity';

export const catalogEntities = [Category, Pet];

/** Listed by hand: the service is a webpack bundle, there is no folder to scan at run time. */
export const catalogMigrations: NamedMigration[] = [
  ...messagingMigrations,
  { name: 'Migration20261122010000_catalog', class: Migration20261122010000_catalog },
];

/** `poolMax`: the service's DATABASE_POOL_MAX (databaseOptions' default when migrating). */
export function catalogDatabaseOptions(url: string, poolMax?: number): Options {
  return databaseOptions({ url, poolMax, entities: catalogEntities, migrations: catalogMigrations });
}
