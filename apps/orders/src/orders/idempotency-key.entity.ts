import { BigIntType, Entity, PrimaryKey, Property, OptionalProps, PrimaryKeyProp } from '@mikro-orm/core';
import type { Order as OrderView } from '@petstore/contracts';

/**
 * The first answer given to an `Idempotency-Key`. The row is written in the same
 * transaction as the order, so a request that fails leaves no key behind.
 */
@Entity({ tableName: 'idempotency_key' })
export class IdempotencyKey {
  [PrimaryKeyProp]?: ['scope', 'key'];
  [OptionalProps]?: 'orderId' | 'response' | 'createdAt';

  @PrimaryKey({ type: 'text', columnType: 'text' })
  scope!: string;

  @PrimaryKey({ type: 'text', columnType: 'text' })
  key!: string;

  /** sha256 of the canonical request body. */
  @Property({ type: 'text', columnType: 'text' })
  fingerprint!: string;

  @Property({ type: new BigIntType('number'), columnType: 'bigint', fieldName: 'order_id', nullable: true })
  orderId: number | null = null;

  @Property({ type: 'json', columnType: 'jsonb', nullable: true })
  response: OrderView | null = null;

  @Property({ type: 'datetime', columnType: 'timestamptz', fieldName: 'created_at' })
  createdAt: Date = new Date();
}
