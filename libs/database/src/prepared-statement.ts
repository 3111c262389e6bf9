import { createHash } from 'node:crypto';
import type { EntityManager, Knex, MikroORM } from '@mikro-orm/postgresql';
import type { QueryResultRow } from 'pg';
import { StatementTransaction, type PoolConnection } from './statement-transaction';

interface Statement {
  name: string;
  text: string;
}

/** Statement texts as PostgreSQL gets them (`$n` placeholders), with the name each is prepared under. */
const statements = new Map<string, Statement>();

/** How PostgreSQL plans a statement. */
export interface StatementOptions {
  /**
   * `cached` (the default): prepared by name, parsed once per connection and, after a few runs,
   * planned once. `each call`: parsed and planned on every call with its values, for a
   * statement that reads a table growing without bound. A cached plan is made from the table's
   * size at the time and kept for the connection's life, unless ANALYZE changes the table's
   * statistics; where nothing ANALYZEs (autovacuum off), a plan made on an empty table is kept
   * while it grows (seen: a decision walking every dead entry of the orders' `placed` index
   * range, 55,000 of them per decision after 10 minutes at 200 orders/s).
   */
  plan?: 'cached' | 'each call';
}

/**
 * Runs `sql` (`?` placeholders, as `em.execute` takes them) in em's transaction when there is
 * one (knex's, or a StatementTransaction's), else on a pooled connection. The driver binds
 * `params` (an array goes as one PostgreSQL array: write `?::bigint[]`, not `array[?]`), and by
 * default the statement is prepared by name (see StatementOptions). `em.execute` instead writes
 * every value into a new text, parsed and planned on every call: on the saga's hot statements
 * that was as much work as running them.
 *
 * The text is final, so it goes to pg on a connection from knex's pool (or the transaction's)
 * without a knex query builder: building, compiling and running one per statement was about a
 * sixth of the caller's CPU per statement (docs/BENCHMARKS-HISTORY.md, "Statements straight to pg").
 *
 * Only for texts that do not depend on the data (a batch goes as arrays, through `unnest`):
 * every connection keeps each text it has seen.
 */
export async function executePrepared<Row = Record<string, unknown>>(
  em: EntityManager,
  sql: string,
  params: readonly unknown[] = [],
  { plan = 'cached' }: StatementOptions = {},
): Promise<Row[]> {
  const { name, text } = statementOf(sql);
  // A name makes it a prepared statement; none is pg's unnamed statement, planned with the values.
  const values = params as unknown[];
  const query = plan === 'cached' ? { name, text, values } : { text, values };
  const transaction = em.getTransactionContext<Knex.Transaction | StatementTransaction>();
  try {
    // As knex refuses it: the transaction ended under the caller (its connection failed, or it was rolled back).
    if (transaction?.isCompleted()) throw new Error('Transaction query already complete, run with DEBUG=knex:tx for more info');
    if (transaction instanceof StatementTransaction) {
      return (await transaction.connection.query<Row & QueryResultRow>(query)).rows;
    }
    // A transaction's knex client hands out the transaction's own connection and keeps it on release.
    const { client } = transaction ?? em.getKnex();
    const connection = (await client.acquireConnection()) as PoolConnection;
    try {
      return (await connection.query<Row & QueryResultRow>(query)).rows;
    } finally {
      await client.releaseConnection(connection);
    }
  } catch (error) {
    // As em.execute throws them: a MikroORM DriverException (UniqueConstraintViolationException,
    // LockWaitTimeoutException...), with the driver's code and fields kept.
    throw em.getDriver().convertException(error as Error);
  }
}

/**
 * An EntityManager for executePrepared outside any transaction, to keep for a component's life:
 * a fork takes no caller's transaction from the async context, as `orm.em` would, and making
 * one per statement cost an EntityManager per order on the saga's hot paths.
 */
export function poolEntityManager(orm: MikroORM): EntityManager {
  return orm.em.fork();
}

function statementOf(sql: string): Statement {
  let statement = statements.get(sql);
  if (!statement) {
    let position = 0;
    const text = sql.replace(/\?/g, () => `$${++position}`);
    statement = { name: `petstore_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`, text };
    statements.set(sql, statement);
  }
  return statement;
}
