import { randomBytes } from 'node:crypto';
import { MikroORM } from '@mikro-orm/postgresql';
import { Client } from 'pg';
import { databaseOptions } from './database-options';
import { executePrepared } from './prepared-statement';

const admin = 'postgres://postgres@127.0.0.1:5432';

describe('executePrepared against PostgreSQL', () => {
  const database = `petstore_prepared_${randomBytes(4).toString('hex')}_test`;
  let orm: MikroORM;

  beforeAll(async () => {
    const client = new Client({ connectionString: `${admin}/postgres` });
    await client.connect();
    await client.query(`create database "${database}"`);
    await client.end();
    orm = await MikroORM.init({
      ...databaseOptions({ url: `${admin}/${database}`, entities: [], migrations: [], poolMax: 1 }),
      discovery: { warnWhenNoEntities: false },
    });
    await orm.em.getConnection().execute('create table note (id bigint primary key, text text not null)');
  }, 30_000);

  afterAll(async () => {
    await orm?.close(true);
    const client = new Client({ connectionString: `${admin}/postgres` });
    await client.connect();
    await client.query(`drop database if exists "${database}" with (force)`);
    await client.end();
  }, 30_000);

  const insertNotes = 'insert into note (id, text) select * from unnest(?::bigint[], ?::text[]) returning id, text';
  const notes = async () =>
    executePrepared<{ id: string; text: string }>(orm.em.fork(), 'select id, text from note order by id');

  it('binds an array as one parameter, whatever its length, and values are never read as SQL', async () => {
    const tricky = `it's "quoted", {braced}, back\\slashed; drop table note; --`;
    await executePrepared(orm.em.fork(), insertNotes, [[1], ['one']]);
    await executePrepared(orm.em.fork(), insertNotes, [
      [2, 3, 4],
      ['two', tricky, 'four'],
    ]);
    expect(await notes()).toEqual([
      { id: '1', text: 'one' },
      { id: '2', text: 'two' },
      { id: '3', text: tricky },
      { id: '4', text: 'four' },
    ]);
    // One text, one statement prepared on the (only) connection, however many rows went through it.
    const prepared = await executePrepared<{ statement: string }>(
      orm.em.fork(),
      `select statement from pg_prepared_statements where statement like 'insert into note%'`,
    );
    expect(prepared).toHaveLength(1);
  });

  it("runs in the EntityManager's transaction: rolled back with it", async () => {
    await expect(
      orm.em.fork().transactional(async (em) => {
        await executePrepared(em, insertNotes, [[10], ['ten']]);
        expect((await executePrepared(em, 'select count(*)::int as n from note where id = ?', [10]))[0]).toEqual({ n: 1 });
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    expect((await notes()).map((note) => note.id)).not.toContain('10');
  });
});
