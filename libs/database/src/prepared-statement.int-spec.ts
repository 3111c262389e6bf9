import { UniqueConstraintViolationException, type MikroORM } from '@mikro-orm/postgresql';
import { isDatabaseUnavailable } from './database-unavailable';
import { executePrepared, poolEntityManager } from './prepared-statement';
import { ScratchDatabase } from './testing/scratch-database';

describe('executePrepared against PostgreSQL', () => {
  const database = new ScratchDatabase('prepared');
  let orm: MikroORM;

  beforeAll(async () => {
    await database.create();
    orm = await database.openOrm(1);
    await orm.em.getConnection().execute('create table note (id bigint primary key, text text not null)');
  }, 30_000);

  afterAll(async () => {
    await orm?.close(true);
    await database.drop();
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

  it("plans a statement 'each call' with the table as it is now, not as it was when a plan was first cached", async () => {
    // Like store_order: rows enter `open` and leave it, and an index leads with the state, so its
    // `open` range keeps an entry for every row that ever was open until vacuum removes them.
    const connection = orm.em.getConnection();
    await connection.execute('create table item (id bigint primary key, state text not null)');
    await connection.execute('create index item_state_id_idx on item (state, id)');
    const close = `update item set state = 'closed' from unnest(?::bigint[]) u(id) where item.id = u.id and item.state = 'open'`;
    const openItems = (from: number, to: number) =>
      connection.execute(`insert into item select id, 'open' from generate_series(${from}, ${to}) id`);
    /** Index entries read by closing `id` with `plan` (the backend's count, before and after). */
    const entriesRead = (id: number, plan: 'cached' | 'each call') =>
      orm.em.fork().transactional(async (em) => {
        const read = async () =>
          Number(
            (await em.execute(`select pg_stat_get_xact_tuples_returned('item_state_id_idx'::regclass) as read`))[0].read,
          );
        const before = await read();
        await executePrepared(em, close, [[id]], { plan });
        return (await read()) - before;
      });

    // While the table is small, each way runs often enough for PostgreSQL to settle on a plan.
    await openItems(1, 20);
    for (let id = 1; id <= 20; id += 1) await entriesRead(id, id % 2 ? 'cached' : 'each call');
    // The table grows: 50,000 items open and close, and nothing vacuums or analyzes it.
    await openItems(1000, 50_999);
    await connection.execute(`update item set state = 'closed' where id between 1000 and 50999`);
    await openItems(60_000, 60_001);

    expect(await entriesRead(60_000, 'each call')).toBeLessThan(10);
    // The plan cached on the small table walks every entry the `open` range ever had.
    expect(await entriesRead(60_001, 'cached')).toBeGreaterThan(10_000);
  });

  it('throws what em.execute throws, and gives the only connection back after a failed statement', async () => {
    await executePrepared(orm.em.fork(), insertNotes, [[20], ['twenty']]);
    await expect(executePrepared(orm.em.fork(), insertNotes, [[20], ['again']])).rejects.toBeInstanceOf(UniqueConstraintViolationException);
    await expect(executePrepared(orm.em.fork(), 'select * from no_such_table')).rejects.toThrow(/no_such_table/);
    // The pool holds one connection: had a failed statement kept it, this would wait for it.
    expect(await executePrepared(orm.em.fork(), 'select count(*)::int as n from note where id = ?', [20])).toEqual([{ n: 1 }]);
  });

  it('refuses a transaction that has ended, as knex does, and that reads as the database out of reach', async () => {
    const em = orm.em.fork();
    const transaction = await em.getKnex().transaction();
    await transaction.rollback();
    em.setTransactionContext(transaction);
    const refusal = await executePrepared(em, 'select 1').catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(Error);
    expect((refusal as Error).message).toMatch('Transaction query already complete');
    expect(isDatabaseUnavailable(refusal)).toBe(true);
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

  it("runs a pool EntityManager's statements outside the transaction of the code that calls it", async () => {
    // Two connections: the transaction holds one while the pool's statement takes the other.
    const wider = await database.openOrm(2);
    try {
      const pool = poolEntityManager(wider);
      const count = 'select count(*)::int as n from note where id = ?';
      await wider.em.transactional(async (em) => {
        await executePrepared(em, insertNotes, [[30], ['thirty']]);
        // The global EntityManager takes the caller's transaction from the async context...
        expect(await executePrepared(wider.em, count, [30])).toEqual([{ n: 1 }]);
        // ...the pool's does not, so it cannot see the row before it commits.
        expect(await executePrepared(pool, count, [30])).toEqual([{ n: 0 }]);
      });
      expect(await executePrepared(pool, count, [30])).toEqual([{ n: 1 }]);
    } finally {
      await wider.close(true);
    }
  });
});
