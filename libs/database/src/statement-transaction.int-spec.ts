import type { EventSubscriber, TransactionEventArgs } from '@mikro-orm/core';
import { ForeignKeyConstraintViolationException, type MikroORM } from '@mikro-orm/postgresql';
import { executePrepared } from './prepared-statement';
import { inStatementTransaction } from './statement-transaction';
import { ScratchDatabase } from './testing/scratch-database';

describe('inStatementTransaction against PostgreSQL', () => {
  const database = new ScratchDatabase('statement_tx');
  let orm: MikroORM;
  /** The transaction events as subscribers get them, with the transaction each names. */
  const events: { type: string; transaction: unknown }[] = [];

  beforeAll(async () => {
    await database.create();
    // Two connections: one for the transaction, one to look from outside it.
    orm = await database.openOrm(2);
    await orm.em.getConnection().execute(
      `create table note (id bigint primary key, parent bigint references note (id) deferrable initially deferred)`,
    );
    const record = (type: string) => (args: TransactionEventArgs) => void events.push({ type, transaction: args.transaction });
    const subscriber: EventSubscriber = {
      beforeTransactionCommit: record('beforeCommit'),
      afterTransactionCommit: record('afterCommit'),
      beforeTransactionRollback: record('beforeRollback'),
      afterTransactionRollback: record('afterRollback'),
    };
    orm.em.getEventManager().registerSubscriber(subscriber);
  }, 30_000);

  afterAll(async () => {
    await orm?.close(true);
    await database.drop();
  }, 30_000);

  beforeEach(() => (events.length = 0));

  const insert = 'insert into note (id, parent) select unnest(?::bigint[]), ?';
  const ids = async () =>
    (await executePrepared<{ id: string }>(orm.em.fork(), 'select id from note order by id')).map((row) => Number(row.id));

  it('commits the statements of its EntityManager, and of the global one inside it, together', async () => {
    const answer = await inStatementTransaction(orm, async (em) => {
      await executePrepared(em, insert, [[1, 2], null]);
      // Inside it, the global EntityManager is the transaction's, as in em.transactional.
      await executePrepared(orm.em, insert, [[3], 1]);
      expect(await executePrepared(em, 'select count(*)::int as n from note')).toEqual([{ n: 3 }]);
      // A fork is not: it looks from another connection, which sees nothing before the commit.
      expect(await ids()).toEqual([]);
      return 'done';
    });
    expect(answer).toBe('done');
    expect(await ids()).toEqual([1, 2, 3]);
    expect(events.map((event) => event.type)).toEqual(['beforeCommit', 'afterCommit']);
    expect(events[0].transaction).toBeDefined();
    expect(events[1].transaction).toBe(events[0].transaction);
  });

  it("rolls back when the work throws, and throws the work's own error", async () => {
    const mistake = new Error('changed my mind');
    await expect(
      inStatementTransaction(orm, async (em) => {
        await executePrepared(em, insert, [[10], null]);
        throw mistake;
      }),
    ).rejects.toBe(mistake);
    expect(await ids()).not.toContain(10);
    expect(events.map((event) => event.type)).toEqual(['beforeRollback', 'afterRollback']);
  });

  it('throws a commit that fails as MikroORM names it, and keeps nothing of the work', async () => {
    // The reference is checked at the commit (deferred): every statement succeeds, the COMMIT fails.
    await expect(
      inStatementTransaction(orm, async (em) => {
        await executePrepared(em, insert, [[20], 999]);
      }),
    ).rejects.toBeInstanceOf(ForeignKeyConstraintViolationException);
    expect(await ids()).not.toContain(20);
    expect(events.map((event) => event.type)).toEqual(['beforeCommit', 'beforeRollback', 'afterRollback']);
  });

  it('refuses entity work and nested transactions, which need knex transactions, with a clear error', async () => {
    await inStatementTransaction(orm, async (em) => {
      await expect(em.execute('select 1')).rejects.toThrow(/statements only/);
      await expect(em.transactional(async () => undefined)).rejects.toThrow(/statements only/);
      await executePrepared(em, insert, [[30], null]);
    });
    expect(await ids()).toContain(30);
  });

  it('gives its connection back, whatever the outcome', async () => {
    // More transactions than the pool has connections: one kept would leave a later one waiting.
    for (let i = 0; i < 5; i++) {
      await inStatementTransaction(orm, async () => {
        throw new Error(`attempt ${i}`);
      }).catch(() => undefined);
      await inStatementTransaction(orm, (em) => executePrepared(em, insert, [[40 + i], 999])).catch(() => undefined);
    }
    await inStatementTransaction(orm, (em) => executePrepared(em, insert, [[50], null]));
    expect(await ids()).toContain(50);
  });
});
