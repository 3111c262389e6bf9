import { EventType, TransactionContext, type TransactionEventType } from '@mikro-orm/core';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Client as PgClient, QueryResultRow } from 'pg';

const STATEMENTS_ONLY =
  'A statement transaction runs statements only (executePrepared): no entity reads or changes, no nested em.transactional';

/** A connection of knex's pool: a pg client (knex's `__knex__disposed` makes its pool destroy it). */
export type PoolConnection = Pick<PgClient, 'query'> & { __knex__disposed?: unknown };

/**
 * The transaction context of `inStatementTransaction`: the connection its statements run on.
 * What would need knex's transaction object (an entity query, a flush of entity changes, a
 * nested `em.transactional`) reaches for `client` or `transaction` and is refused.
 */
export class StatementTransaction {
  private completed = false;

  constructor(readonly connection: PoolConnection) {}

  /** As knex's transaction answers it: the transaction has committed or rolled back. */
  isCompleted(): boolean {
    return this.completed;
  }

  get client(): never {
    throw new Error(STATEMENTS_ONLY);
  }

  transaction(): never {
    throw new Error(STATEMENTS_ONLY);
  }

  /** @internal */
  complete(): void {
    this.completed = true;
  }

  /** BEGIN, COMMIT or ROLLBACK, failing as executePrepared's statements fail. */
  async control(em: EntityManager, command: 'begin' | 'commit' | 'rollback'): Promise<void> {
    try {
      await this.connection.query<QueryResultRow>(command);
    } catch (error) {
      throw em.getDriver().convertException(error as Error);
    }
  }
}

/**
 * em's transaction, knex's or a statement transaction's: what work done for a transaction is
 * kept by, until it commits. `needs` begins the error when em has none ("OutboxWriter.add needs").
 */
export function transactionOf(em: EntityManager, needs: string): object {
  const transaction = em.getTransactionContext<object>();
  if (!transaction) {
    throw new Error(`${needs} the EntityManager of an em.transactional(...) or inStatementTransaction(...) callback`);
  }
  return transaction;
}

/**
 * Runs `work` in one transaction on one pooled connection, for work that is statements only
 * (executePrepared, as the event handlers' is): BEGIN, the work, COMMIT, or ROLLBACK when it
 * throws. `work` gets an EntityManager fork whose statements run in the transaction, and code
 * in it that uses the global EntityManager gets that fork too, as in `em.transactional`.
 * MikroORM's transaction events fire as for `em.transactional`, so TransactionHooks and the
 * OutboxWriter work unchanged.
 *
 * Why not `em.transactional`: for one statement, MikroORM's and knex's transaction objects (a
 * knex instance made per transaction, two forks, a flush) cost 337 µs of the client's CPU
 * against 125 µs for this, and plain pg's 85, on one host (`node scripts/bench.mjs
 * transaction-cost`). A consumer pays that for every batch, and at a shop's rates a batch is
 * one order.
 */
export async function inStatementTransaction<T>(orm: MikroORM, work: (em: EntityManager) => Promise<T>): Promise<T> {
  const em = orm.em.fork();
  const pool = em.getKnex().client;
  let connection: PoolConnection;
  try {
    connection = (await pool.acquireConnection()) as PoolConnection;
  } catch (error) {
    throw em.getDriver().convertException(error as Error);
  }
  const transaction = new StatementTransaction(connection);
  em.setTransactionContext(transaction);
  const events = em.getEventManager();
  const dispatch = async (type: TransactionEventType): Promise<void> => {
    await events.dispatchEvent(type, { em, transaction });
  };
  try {
    return await TransactionContext.create(em, async () => {
      await dispatch(EventType.beforeTransactionStart);
      await transaction.control(em, 'begin');
      await dispatch(EventType.afterTransactionStart);
      let result: T;
      try {
        result = await work(em);
        await dispatch(EventType.beforeTransactionCommit);
        await transaction.control(em, 'commit');
      } catch (error) {
        await rollBack(em, transaction, dispatch);
        throw error;
      }
      transaction.complete();
      await dispatch(EventType.afterTransactionCommit);
      return result;
    });
  } finally {
    transaction.complete();
    await pool.releaseConnection(connection);
  }
}

async function rollBack(
  em: EntityManager,
  transaction: StatementTransaction,
  dispatch: (type: TransactionEventType) => Promise<void>,
): Promise<void> {
  await dispatch(EventType.beforeTransactionRollback);
  try {
    await transaction.control(em, 'rollback');
  } catch (error) {
    // A connection whose transaction may still be open must not serve anyone else: knex's pool
    // destroys a connection so marked, as it does one whose socket failed.
    transaction.connection.__knex__disposed = error;
  }
  transaction.complete();
  await dispatch(EventType.afterTransactionRollback);
}
