import { BigIntType, Check, Entity, OptionalProps, PrimaryKey, Property, Unique } from '@mikro-orm/core';

/**
 * Mirrors the migrations (constraint names included), so that a schema diff against the
 * database finds nothing. Names are unique case-insensitively: the unique index on
 * lower(name) decides, not a prior read.
 */
@Entity({ tableName: 'category' })
@Unique({
  name: 'category_name_lower_key',
  expression: 'create unique index "category_name_lower_key" on "category" (lower("name"))',
})
@Check({ name: 'category_name_length_check', expression: 'char_length(name) >= 1 and char_length(name) <= 50' })
@Check({ name: 'category_description_length_check', expression: 'char_length(description) <= 500' })
export class Category {
  [OptionalProps]?: 'description';

  @PrimaryKey({ type: new BigIntType('number'), columnType: 'bigint', autoincrement: true })
  id!: number;

  @Property({ type: 'text', columnType: 'text' })
  name!: string;

  @Property({ type: 'text', columnType: 'text', nullable: true })
  description: string | null = null;
}
