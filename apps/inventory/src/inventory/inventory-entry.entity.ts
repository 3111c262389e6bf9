import { BigIntType, Check, Entity, Enum, OptionalProps, PrimaryKey, PrimaryKeyProp, Property } from '@mikro-orm/core';
import { PET_STATUSES, type PetStatus } from '@petstore/contracts';
import { UpdatedAtProperty } from '@petstore/database';

/**
 * One pet's free stock and status. A deleted pet's entry stays as a tombstone, so that
 * late events about the pet (a PetCreated, an order) cannot bring it back. Mirrors the
 * migrations (constraint names included), so that a schema diff against the database finds nothing.
 */
@Entity({ tableName: 'inventory_entry' })
@Check({ name: 'inventory_entry_quantity_check', expression: 'quantity >= 0' })
export class InventoryEntry {
  [PrimaryKeyProp]?: 'petId';
  [OptionalProps]?: 'quantity' | 'deleted' | 'lastRecomputeEventId' | 'stockChangedAt' | 'updatedAt';

  @PrimaryKey({ type: new BigIntType('number'), columnType: 'bigint', fieldName: 'pet_id', autoincrement: false })
  petId!: number;

  /** Units free for sale; approved orders have already taken theirs. */
  @Property({ type: 'integer', columnType: 'integer', default: 0 })
  quantity = 0;

  @Enum({ items: [...PET_STATUSES], type: 'text', columnType: 'text' })
  status!: PetStatus;

  @Property({ type: 'boolean', columnType: 'boolean', default: false })
  deleted = false;

  /** The PetStatusRecomputed last published for the pet: tells the catalog's echo of it from older ones. */
  @Property({ type: 'uuid', columnType: 'uuid', fieldName: 'last_recompute_event_id', nullable: true })
  lastRecomputeEventId: string | null = null;

  /** When the stock or the open orders last changed (and the status was recomputed). */
  @Property({ type: 'datetime', columnType: 'timestamptz', fieldName: 'stock_changed_at', nullable: true })
  stockChangedAt: Date | null = null;

  @UpdatedAtProperty()
  updatedAt: Date = new Date();
}
