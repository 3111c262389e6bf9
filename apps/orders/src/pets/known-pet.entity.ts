import { BigIntType, Entity, PrimaryKey, Property, PrimaryKeyProp } from '@mikro-orm/core';

/**
 * What orders knows of the catalog's pets: that one exists, or existed and was deleted.
 * Fed by the catalog's events and, for a pet too new for them, by asking the catalog.
 */
@Entity({ tableName: 'known_pet' })
export class KnownPet {
  [PrimaryKeyProp]?: 'petId';

  @PrimaryKey({ type: new BigIntType('number'), columnType: 'bigint', fieldName: 'pet_id', autoincrement: false })
  petId!: number;

  @Property({ type: 'boolean', columnType: 'boolean' })
  deleted = false;
}
