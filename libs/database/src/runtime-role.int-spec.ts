import { randomBytes } from 'node:crypto';
import { Migration } from '@mikro-orm/migrations';
import { Client } from 'pg';
import { databaseOptions } from './database-options';
import { migrate } from './migrate';
import { roleOf } from './runtime-role';

class Migration20260101000000_note extends Migration {
  override async up(): Promise<void> {
    this.addSql('create table "note" ("id" bigserial primary key, "text" text not null);');
  }
}

const admin = 'postgres://postgres@127.0.0.1:5432';

/** A database migrated by the owner (postgres) for a runtime role named after it, as the local stack does. */
async function serviceDatabase(): Promise<{ database: string; url: string }> {
  const database = `petstore_role_${randomBytes(4).toString('hex')}_test`;
  const options = databaseOptions({
    url: `${admin}/${database}`,
    entities: [],
    migrations: [{ name: 'Migration20260101000000_note', class: Migration20260101000000_note }],
  });
  const url = `postgres://${database}@127.0.0.1:5432/${database}`;
  await migrate({ ...options, discovery: { warnWhenNoEntities: false } }, roleOf(url));
  return { database, url };
}

async function as(url: string, sql: string): Promise<unknown> {
  const client = new Client({ connectionString: url });
  try {
    await client.connect();
    return (await client.query(sql)).rows;
  } finally {
    await client.end().catch(() => undefined);
  }
}

describe('the runtime role the migrate step sets up', () => {
  const created: string[] = [];
  let own: { database: string; url: string };
  let other: { database: string; url: string };

  beforeAll(async () => {
    own = await serviceDatabase();
    other = await serviceDatabase();
    created.push(own.database, other.database);
  }, 60_000);

  afterAll(async () => {
    const client = new Client({ connectionString: `${admin}/postgres` });
    await client.connect();
    for (const name of created) {
      await client.query(`drop database if exists "${name}" with (force)`);
      await client.query(`drop role if exists "${name}"`);
    }
    await client.end();
  }, 30_000);

  it('reads and writes the rows of its own database', async () => {
    await as(own.url, `insert into note (text) values ('hello')`);
    await as(own.url, `update note set text = 'again'`);
    await expect(as(own.url, 'select text from note')).resolves.toEqual([{ text: 'again' }]);
    await as(own.url, 'delete from note');
  });

  it('cannot change the schema or the migrations record', async () => {
    await expect(as(own.url, 'create table intruder (id int)')).rejects.toThrow(/permission denied for schema public/);
    await expect(as(own.url, 'drop table note')).rejects.toThrow(/must be owner of table note/);
    await expect(as(own.url, 'alter table note add column secret text')).rejects.toThrow(/must be owner of table note/);
    await expect(as(own.url, `delete from mikro_orm_migrations`)).rejects.toThrow(/permission denied for table mikro_orm_migrations/);
  });

  it("cannot reach another service's database", async () => {
    const intoOther = new URL(other.url);
    intoOther.username = own.database;
    await expect(as(intoOther.toString(), 'select 1')).rejects.toThrow(/permission denied for database/);
  });

  it('is set up again by a later migrate run without complaint', async () => {
    const options = databaseOptions({ url: `${admin}/${own.database}`, entities: [], migrations: [] });
    await expect(migrate({ ...options, discovery: { warnWhenNoEntities: false } }, roleOf(own.url))).resolves.toEqual([]);
    await expect(as(own.url, 'select count(*)::int as n from note')).resolves.toEqual([{ n: 0 }]);
  }, 30_000);
});
