import { BigIntType, Check, Entity, Enum, Index, ManyToOne, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';
import { PET_STATUSES, type PetStatus } from '@petstore/contracts';
import { CreatedAtProperty, UpdatedAtProperty } from '@petstore/database';
import { Category } from '../categories/category.entity';

/** Mirrors the migrations (constraint names included), so that a schema diff against the database finds nothing. */
@Entity({ tableName: 'pet' })
@Index({ name: 'pet_category_id_id_idx', properties: ['category', 'id'] })
@Check({ name: 'pet_name_length_check', expression: 'char_length(name) >= 1 and char_length(name) <= 100' })
export class Pet {
  [OptionalProps]?: 'status' | 'createdAt' | 'updatedAt';

  @PrimaryKey({ type: new BigIntType('number'), columnType: 'bigint', autoincrement: true })
  id!: number;

  @Property({ type: 'text', columnType: 'text' })
  name!: string;

  // Restrict: a category with pets cannot disappear under them.
  @ManyToOne(() => Category, {
    fieldName: 'category_id',
    columnType: 'bigint',
    foreignKeyName: 'pet_category_id_fkey',
    deleteRule: 'restrict',
    updateRule: 'restrict',
  })
  category!: Category;

  @Enum({ items: [...PET_STATUSES], type: 'text', columnType: 'text' })
  status: PetStatus = 'available';

  @CreatedAtProperty()
  createdAt: Date = new Date();

  @UpdatedAtProperty()
  updatedAt: Date = new Date();
}
