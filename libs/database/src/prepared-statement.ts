import { createHash } from 'node:crypto';
import type { Transaction } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';

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
 * one, else on a pooled connection. The driver binds `params` (an array goes as one PostgreSQL
 * array: write `?::bigint[]`, not `array[?]`), and by default the statement is prepared by name
 * (see StatementOptions). `em.execute` instead writes every value into a new text, parsed and
 * planned on every call: on the saga's hot statements that was as much work as running them.
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
  // knex hands `options` to pg as they are: a name makes it a prepared statement (none: pg's
  // unnamed statement, planned with the values), `values` bypasses knex's own binding.
  const query = em
    .getKnex()
    .raw(text)
    .options(plan === 'cached' ? { name, values: params } : { values: params });
  const transaction = em.getTransactionContext<Transaction>();
  if (transaction) query.transacting(transaction as never);
  try {
    const result = (await query) as { rows: Row[] };
    return result.rows;
  } catch (error) {
    // As em.execute throws them: a MikroORM DriverException (UniqueConstraintViolationException,
    // LockWaitTimeoutException...), with the driver's code and fields kept.
    throw em.getDriver().convertException(error as Error);
  }
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
