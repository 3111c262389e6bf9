import { Entity, PrimaryKey, Property } from '@mikro-orm/core';
import { Migration } from '@mikro-orm/migrations';
import { MikroORM } from '@mikro-orm/postgresql';
import { databaseOptions } from './database-options';
import { assertTestDatabaseName, migrate, prepareTestDatabase } from './migrate';

@Entity({ tableName: 'note' })
class Note {
  @PrimaryKey({ type: 'bigint', autoincrement: true })
  id!: number;

  @Property({ type: 'text' })
  text!: string;
}

class Migration20260101000000_note extends Migration {
  override async up(): Promise<void> {
    this.addSql('create table "note" ("id" bigserial primary key, "text" text not null);');
  }
}

const options = databaseOptions({
  url: 'postgres://postgres@127.0.0.1:5432/petstore_database_lib_test',
  entities: [Note],
  migrations: [{ name: 'Migration20260101000000_note', class: Migration20260101000000_note }],
});

describe('database', () => {
  it('refuses to reset a database whose name does not mark it as a test database', () => {
    expect(() => assertTestDatabaseName('petstore_catalog')).toThrow(/Refusing/);
    expect(() => assertTestDatabaseName('petstore_catalog_test')).not.toThrow();
  });

  it('creates the database, applies migrations once, and starts clean when prepared for tests', async () => {
    await prepareTestDatabase(options);
    expect(await migrate(options)).toEqual([]);

    const orm = await MikroORM.init(options);
    try {
      const em = orm.em.fork();
      em.create(Note, { text: 'hello' });
      await em.flush();
      expect(await orm.em.fork().count(Note)).toBe(1);
    } finally {
      await orm.close(true);
    }

    await prepareTestDatabase(options);
    const fresh = await MikroORM.init(options);
    try {
      expect(await fresh.em.fork().count(Note)).toBe(0);
    } finally {
      await fresh.close(true);
    }
  });
});
