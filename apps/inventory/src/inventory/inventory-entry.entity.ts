import { BigIntType, Entity, PrimaryKey, Property, OptionalProps, PrimaryKeyProp } from '@mikro-orm/core';
import type { PetStatus } from '@petstore/contracts';

/**
 * One pet's free stock and status. A deleted pet's entry stays as a tombstone, so that
 * late events about the pet (a PetCreated, an order) cannot bring it back.
 */
@Entity({ tableName: 'inventory_entry' })
export class InventoryEntry {
  [PrimaryKeyProp]?: 'petId';
  [OptionalProps]?: 'quantity' | 'deleted' | 'lastRecomputeEventId' | 'stockChangedAt' | 'updatedAt';

  @PrimaryKey({ type: new BigIntType('number'), columnType: 'bigint', fieldName: 'pet_id', autoincrement: false })
  petId!: number;

  /** Units free for sale; approved orders have already taken theirs. */
  @Property({ type: 'integer', columnType: 'integer' })
  quantity = 0;

  @Property({ type: 'text', columnType: 'text' })
  status!: PetStatus;

  @Property({ type: 'boolean', columnType: 'boolean' })
  deleted = false;

  /** The PetStatusRecomputed last published for the pet: tells the catalog's echo of it from older ones. */
  @Property({ type: 'uuid', columnType: 'uuid', fieldName: 'last_recompute_event_id', nullable: true })
  lastRecomputeEventId: string | null = null;

  /** When the stock or the open orders last changed (and the status was recomputed). */
  @Property({ type: 'datetime', columnType: 'timestamptz', fieldName: 'stock_changed_at', nullable: true })
  stockChangedAt: Date | null = null;

  @Property({ type: 'datetime', columnType: 'timestamptz', fieldName: 'updated_at', onUpdate: () => new Date() })
  updatedAt: Date = new Date();
}
