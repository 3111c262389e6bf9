import { BigIntType, Check, Entity, Enum, Index, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';
import {
  ORDER_QUANTITY,
  ORDER_STATUSES,
  REJECTION_REASONS,
  type OrderStatus,
  type RejectionReason,
} from '@petstore/contracts';
import { CreatedAtProperty, UpdatedAtProperty } from '@petstore/database';

/** Mirrors the migrations (constraint names included), so that a schema diff against the database finds nothing. */
@Entity({ tableName: 'store_order' })
@Index({ name: 'store_order_pet_id_id_idx', properties: ['petId', 'id'] })
@Index({ name: 'store_order_status_id_idx', properties: ['status', 'id'] })
@Check({
  name: 'store_order_quantity_check',
  expression: `quantity >= ${ORDER_QUANTITY.minimum} and quantity <= ${ORDER_QUANTITY.maximum}`,
})
@Check({
  name: 'store_order_rejected_has_reason_check',
  expression: "(status = 'rejected') = (rejection_reason is not null)",
})
export class Order {
  [OptionalProps]?: 'status' | 'shipDate' | 'rejectionReason' | 'createdAt' | 'updatedAt';

  @PrimaryKey({ type: new BigIntType('number'), columnType: 'bigint', autoincrement: true })
  id!: number;

  @Property({ type: new BigIntType('number'), columnType: 'bigint', fieldName: 'pet_id' })
  petId!: number;

  @Property({ type: 'integer', columnType: 'integer' })
  quantity!: number;

  @Property({ type: 'datetime', columnType: 'timestamptz', fieldName: 'ship_date', nullable: true })
  shipDate: Date | null = null;

  @Enum({ items: [...ORDER_STATUSES], type: 'text', columnType: 'text', default: 'placed' })
  status: OrderStatus = 'placed';

  @Enum({ items: [...REJECTION_REASONS], type: 'text', columnType: 'text', fieldName: 'rejection_reason', nullable: true })
  rejectionReason: RejectionReason | null = null;

  @CreatedAtProperty()
  createdAt: Date = new Date();

  @UpdatedAtProperty()
  updatedAt: Date = new Date();
}
