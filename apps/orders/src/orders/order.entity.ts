import { BigIntType, Entity, PrimaryKey, Property, OptionalProps } from '@mikro-orm/core';
import type { OrderStatus, RejectionReason } from '@petstore/contracts';

@Entity({ tableName: 'store_order' })
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

  @Property({ type: 'text', columnType: 'text' })
  status: OrderStatus = 'placed';

  @Property({ type: 'text', columnType: 'text', fieldName: 'rejection_reason', nullable: true })
  rejectionReason: RejectionReason | null = null;

  @Property({ type: 'datetime', columnType: 'timestamptz', fieldName: 'created_at' })
  createdAt: Date = new Date();

  @Property({ type: 'datetime', columnType: 'timestamptz', fieldName: 'updated_at', onUpdate: () => new Date() })
  updatedAt: Date = new Date();
}
