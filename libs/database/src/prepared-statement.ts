import { createHash } from 'node:crypto';
import type { Transaction } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';

interface Statement {
  name: string;
  text: string;
}

/** Statement texts as PostgreSQL gets them (`$n` placeholders), with the name each is prepared under. */
const statements = new Map<string, Statement>();

/**
 * Runs `sql` (`?` placeholders, as `em.execute` takes them) as a named prepared statement, in
 * `transaction` or em's transaction when there is one, else on a pooled connection. The driver
 * binds `params` (an array goes as one PostgreSQL array: write `?::bigint[]`, not
 * `array[?]`), and PostgreSQL parses the text once per connection and, after a few runs, plans
 * it once. `em.execute` instead writes every value into a new text, parsed and planned on every
 * call: on the saga's hot statements that was as much work as running them.
 *
 * Only for texts that do not depend on the data (a batch goes as arrays, through `unnest`):
 * every connection keeps each text it has seen.
 */
export async function executePrepared<Row = Record<string, unknown>>(
  em: EntityManager,
  sql: string,
  params: readonly unknown[] = [],
  transaction: Transaction | undefined = em.getTransactionContext(),
): Promise<Row[]> {
  const { name, text } = statementOf(sql);
  // knex hands `options` to pg as they are: the name makes it a prepared statement, `values` bypasses knex's own binding.
  const query = em
    .getKnex()
    .raw(text)
    .options({ name, values: params });
  if (transaction) query.transacting(transaction as never);
  const result = (await query) as { rows: Row[] };
  return result.rows;
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
