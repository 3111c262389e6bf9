import { BigIntType, Entity, PrimaryKey, Property, OptionalProps, PrimaryKeyProp } from '@mikro-orm/core';
import type { RejectionReason } from '@petstore/contracts';

/**
 * - reserved: the order was approved and holds `quantity` units;
 * - rejected: the order was refused (`reason`);
 * - released: the units went back to the stock when the approved order was cancelled;
 * - delivered: the order was fulfilled, its units are gone for good;
 * - cancelled: the cancellation arrived before any decision, so nothing will be reserved.
 */
export const RESERVATION_STATES = ['reserved', 'rejected', 'released', 'delivered', 'cancelled'] as const;
export type ReservationState = (typeof RESERVATION_STATES)[number];

/** The inventory's record of its decision about one order: one row per order id, whatever happens. */
@Entity({ tableName: 'reservation' })
export class Reservation {
  [PrimaryKeyProp]?: 'orderId';
  [OptionalProps]?: 'reason' | 'createdAt' | 'updatedAt';

  @PrimaryKey({ type: new BigIntType('number'), columnType: 'bigint', fieldName: 'order_id', autoincrement: false })
  orderId!: number;

  @Property({ type: new BigIntType('number'), columnType: 'bigint', fieldName: 'pet_id' })
  petId!: number;

  @Property({ type: 'integer', columnType: 'integer' })
  quantity!: number;

  @Property({ type: 'text', columnType: 'text' })
  state!: ReservationState;

  @Property({ type: 'text', columnType: 'text', nullable: true })
  reason: RejectionReason | null = null;

  @Property({ type: 'datetime', columnType: 'timestamptz', fieldName: 'created_at' })
  createdAt: Date = new Date();

  @Property({ type: 'datetime', columnType: 'timestamptz', fieldName: 'updated_at', onUpdate: () => new Date() })
  updatedAt: Date = new Date();
}
