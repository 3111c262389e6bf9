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

export function ordersDatabaseOptions(url: string): Options {
  return databaseOptions({ url, entities: ordersEntities, migrations: ordersMigrations });
}
