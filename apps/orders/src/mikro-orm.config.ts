import type { Options } from '@mikro-orm/postgresql';
import { databaseOptions, type NamedMigration } from '@petstore/database';
import { messagingMigrations } from '@petstore/messaging';
import { Migration20261122000000_orders } from './migrations/Migration20261122000000_orders';
import { Order } from './orders/order.entity';

export const ordersEntities = [Order];

/** Listed by hand: the service is a webpack bundle, there is no folder to scan at run time. */
export const ordersMigrations: NamedMigration[] = [
  ...messagingMigrations,
  { name: 'Migration20261122000000_orders', class: Migration20261122000000_orders },
];

/** `poolMax`: the service's DATABASE_POOL_MAX (databaseOptions' default when migrating). */
export function ordersDatabaseOptions(url: string, poolMax?: number): Options {
  return databaseOptions({ url, poolMax, entities: ordersEntities, migrations: ordersMigrations });
}
