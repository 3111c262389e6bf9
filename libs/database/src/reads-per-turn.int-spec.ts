import { TableNotFoundException, type MikroORM } from '@mikro-orm/postgresql';
import { executePrepared } from './prepared-statement';
import { RowsById, SharedReads } from './reads-per-turn';
import { ScratchDatabase } from './testing/scratch-database';

interface Note {
  id: string;
  text: string;
}

describe('reads of one event-loop turn, against PostgreSQL', () => {
  const database = new ScratchDatabase('reads');
  let orm: MikroORM;

  beforeAll(async () => {
    await database.create();
    // One connection, so that pg_prepared_statements shows every statement the reads sent.
    orm = await database.openOrm(1);
    await orm.em.getConnection().execute(`create table note (id bigint primary key, text text not null)`);
    await orm.em.getConnection().execute(`insert into note (id, text) select n, 'note ' || n from generate_series(1, 30) as n`);
  }, 30_000);

  afterAll(async () => {
    await orm?.close(true);
    await database.drop();
  }, 30_000);

  /** How many times the connection has run the statement that starts so (each run plans it once, generic or custom). */
  const runsOf = async (start: string): Promise<number> => {
    const [row] = await executePrepared<{ runs: string | null }>(
      orm.em.fork(),
      `select sum(generic_plans + custom_plans) as runs from pg_prepared_statements where statement like ?`,
      [`${start}%`],
    );
    return Number(row?.runs ?? 0);
  };
  const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

  describe('RowsById', () => {
    const byId = () => new RowsById<Note>(orm.em, 'select id, text from note where id = any(?::bigint[])', 'id');

    it('answers the ids asked in one turn with one statement, each caller its own row, a missing one undefined', async () => {
      const notes = byId();
      const before = await runsOf('select id, text from note where id = any');

      const rows = await Promise.all([3, 1, 99, 3, 30].map((id) => notes.load(id)));

      expect(rows).toEqual([
        { id: '3', text: 'note 3' },
        { id: '1', text: 'note 1' },
        undefined,
        { id: '3', text: 'note 3' },
        { id: '30', text: 'note 30' },
      ]);
      expect((await runsOf('select id, text from note where id = any')) - before).toBe(1);
    });

    it('sends the ids of another turn in a statement of its own, which sees what was committed since', async () => {
      const notes = byId();
      const before = await runsOf('select id, text from note where id = any');

      const first = notes.load(31);
      await nextTurn();
      await executePrepared(orm.em.fork(), `insert into note (id, text) values (31, 'added')`);
      const second = notes.load(31);

      expect(await first).toBeUndefined();
      expect(await second).toEqual({ id: '31', text: 'added' });
      expect((await runsOf('select id, text from note where id = any')) - before).toBe(2);
    });

    it("fails every caller of a statement that fails, with the driver's error as executePrepared throws it", async () => {
      const broken = new RowsById<Note>(orm.em, 'select id, text from no_such_table where id = any(?::bigint[])', 'id');

      const results = await Promise.allSettled([broken.load(1), broken.load(2)]);

      expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected']);
      for (const result of results) expect((result as PromiseRejectedResult).reason).toBeInstanceOf(TableNotFoundException);
    });
  });

  describe('SharedReads', () => {
    const page = 'select id, text from note where id > ? order by id limit ?';
    // As PostgreSQL keeps the text: `$n` in place of `?`.
    const pageStatement = 'select id, text from note where id > $1';

    it('runs the same read of one turn once and gives every caller its rows', async () => {
      const reads = new SharedReads(orm.em);
      const before = await runsOf(pageStatement);

      const [first, second, third] = await Promise.all([
        reads.read<Note>(page, [0, 2]),
        reads.read<Note>(page, [0, 2]),
        reads.read<Note>(page, [28, 2]),
      ]);

      expect(first).toEqual([
        { id: '1', text: 'note 1' },
        { id: '2', text: 'note 2' },
      ]);
      expect(second).toEqual(first);
      expect(third).toEqual([
        { id: '29', text: 'note 29' },
        { id: '30', text: 'note 30' },
      ]);
      // Two distinct reads, two statements: the repeated one shared the first's.
      expect((await runsOf(pageStatement)) - before).toBe(2);
    });

    it('runs the same read again in a later turn, seeing what was committed since', async () => {
      const reads = new SharedReads(orm.em);
      const newest = 'select id, text from note order by id desc limit ?';

      const first = await reads.read<Note>(newest, [1]);
      await executePrepared(orm.em.fork(), `insert into note (id, text) values (40, 'newest')`);
      const second = await reads.read<Note>(newest, [1]);

      expect(first).not.toEqual([{ id: '40', text: 'newest' }]);
      expect(second).toEqual([{ id: '40', text: 'newest' }]);
    });

    it('fails only the callers of the read that failed', async () => {
      const reads = new SharedReads(orm.em);

      const [good, bad, badAgain] = await Promise.allSettled([
        reads.read<Note>(page, [0, 1]),
        reads.read<Note>('select id from no_such_table where id > ?', [0]),
        reads.read<Note>('select id from no_such_table where id > ?', [0]),
      ]);

      expect(good).toEqual({ status: 'fulfilled', value: [{ id: '1', text: 'note 1' }] });
      expect(bad.status).toBe('rejected');
      expect((bad as PromiseRejectedResult).reason).toBeInstanceOf(TableNotFoundException);
      expect(badAgain.status).toBe('rejected');
    });
  });
});
