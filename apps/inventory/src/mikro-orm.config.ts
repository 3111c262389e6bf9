import type { Options } from '@mikro-orm/postgresql';
import { databaseOptions, type NamedMigration } from '@petstore/database';
import { messagingMigrations } from '@petstore/messaging';
import { InventoryEntry } from './inventory/inventory-entry.entity';
import { Migration20261122000000_inventory } from './migrations/Migration20261122000000_inventory';
import { Migration20261124000000_inventory_saga } from './migrations/Migration20261124000000_inventory_saga';

export const inventoryEntities = [InventoryEntry];

/** Listed by hand: the service is a webpack bundle, there is no folder to scan at run time. */
export const inventoryMigrations: NamedMigration[] = [
  ...messagingMigrations,
  { name: 'Migration20261122000000_inventory', class: Migration20261122000000_inventory },
  { name: 'Migration20261124000000_inventory_saga', class: Migration20261124000000_inventory_saga },
];

/** `poolMax`: the service's DATABASE_POOL_MAX (databaseOptions' default when migrating). */
export function inventoryDatabaseOptions(url: string, poolMax?: number): Options {
  return databaseOptions({
    url,
    poolMax,
    entities: inventoryEntities,
    migrations: inventoryMigrations,
  });
}
