import type { Options } from '@mikro-orm/postgresql';
import { databaseOptions, type NamedMigration } from '@petstore/database';
import { messagingEntities, messagingMigrations } from '@petstore/messaging';
import { Migration20261122000000_orders } from './migrations/Migration20261122000000_orders';
import { IdempotencyKey } from './orders/idempotency-key.entity';
import { Order } from './orders/order.entity';
import { KnownPet } from './pets/known-pet.entity';

export const ordersEntities = [Order, IdempotencyKey, KnownPet];

/** Listed by hand: the service is a webpack bundle, there is no folder to scan at run time. */
export const ordersMigrations: NamedMigration[] = [
  ...messagingMigrations,
  { name: 'Migration20261122000000_orders', class: Migration20261122000000_orders },
];

export function ordersDatabaseOptions(url: string): Options {
  return databaseOptions({ url, entities: [...ordersEntities, ...messagingEntities], migrations: ordersMigrations });
}
