// What a transaction of one statement costs the client's CPU, by the way it is made:
// `node scripts/bench.mjs transaction-cost [transactions=4000] [rounds=4]`.
// The event consumers pay one per batch, and at a shop's rates a batch is one order; the floor
// pays plain pg's. The figure is the Node process's CPU (every thread) per transaction, after a
// warm-up, in rounds that take the ways in turn; the median of the rounds is the one to read.
import type { MikroORM } from '@mikro-orm/postgresql';
import { Client } from 'pg';
import { ScratchDatabase, executePrepared, inStatementTransaction } from '@petstore/database';
import { median } from './figures';

const STATEMENT = 'select 1 as one';

type Way = (orm: MikroORM, pg: Client) => Promise<unknown>;

/** Each way runs the same prepared statement in a transaction of its own (the last: alone). */
const WAYS: Record<string, Way> = {
  'em.fork().transactional': (orm) => orm.em.fork().transactional((em) => executePrepared(em, STATEMENT)),
  inStatementTransaction: (orm) => inStatementTransaction(orm, (em) => executePrepared(em, STATEMENT)),
  'pg: BEGIN, the statement, COMMIT': async (_, pg) => {
    await pg.query('begin');
    await pg.query({ name: 'one', text: STATEMENT });
    await pg.query('commit');
  },
  'pg: the statement alone': (_, pg) => pg.query({ name: 'one', text: STATEMENT }),
};

/** CPU µs of this process per call of `way`, over `count` calls one after another. */
async function cpuUsPerCall(way: () => Promise<unknown>, count: number): Promise<number> {
  for (let i = 0; i < count / 10; i++) await way();
  const before = process.cpuUsage();
  for (let i = 0; i < count; i++) await way();
  const spent = process.cpuUsage(before);
  return (spent.user + spent.system) / count;
}

export async function transactionCost(transactions = '4000', rounds = '4'): Promise<number> {
  const count = Number(transactions);
  const roundCount = Number(rounds);
  if (!(count > 0) || !(roundCount > 0)) {
    console.error('usage: node scripts/bench.mjs transaction-cost [transactions=4000] [rounds=4]');
    return 2;
  }
  const database = new ScratchDatabase('transaction_cost');
  await database.create();
  // One connection each, as a consumer's transaction holds one.
  const orm = await database.openOrm(1);
  const pg = new Client({ connectionString: database.url });
  await pg.connect();
  try {
    const figures = new Map<string, number[]>(Object.keys(WAYS).map((name) => [name, []]));
    for (let round = 0; round < roundCount; round++) {
      for (const [name, way] of Object.entries(WAYS)) {
        figures.get(name)?.push(await cpuUsPerCall(() => way(orm, pg), count));
      }
    }
    console.log(`CPU µs of the client per transaction of one statement (${count} in a row, ${roundCount} rounds):`);
    for (const [name, values] of figures) {
      console.log(`${median(values).toFixed(1).padStart(8)}  ${name.padEnd(34)} rounds: ${values.map((value) => value.toFixed(1)).join(', ')}`);
    }
    return 0;
  } finally {
    await pg.end();
    await orm.close(true);
    await database.drop();
  }
}
