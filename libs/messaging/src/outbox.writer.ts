import { Injectable } from '@nestjs/common';
import type { EntityManager } from '@mikro-orm/postgresql';
import { findEventDefinition, type EventEnvelope } from '@petstore/contracts';
import { OutboxRelay } from './outbox.relay';
import { TransactionHooks } from './transaction-hooks';
import { traceCarrierOf, writeContextFor } from './trace-context';

/** The columns of one outbox row, in the order of `outboxInsert`. */
export interface OutboxRow {
  eventId: string;
  topic: string;
  key: string;
  type: string;
  envelope: EventEnvelope;
  traceparent: string | null;
  tracestate: string | null;
}

/** The row for `envelope`, with the trace context it is written in. */
export function outboxRow(envelope: EventEnvelope): OutboxRow {
  const definition = findEventDefinition(envelope.type);
  if (!definition) throw new Error(`Unknown event type ${envelope.type}: define it in @petstore/contracts`);
  const carrier = traceCarrierOf(writeContextFor(envelope.causationId));
  return {
    eventId: envelope.eventId,
    topic: definition.topic,
    key: envelope.key,
    type: envelope.type,
    envelope,
    traceparent: carrier.traceparent ?? null,
    tracestate: carrier.tracestate ?? null,
  };
}

/**
 * One statement for any number of rows (MikroORM's `?` placeholders). `envelopeSql` lets a
 * caller compute the stored envelope from the one given, as `jsonb_set(?::jsonb, ...)` does
 * when an id is only known to the statement.
 */
export function outboxInsert(
  rows: OutboxRow[],
  envelopeSql = '?::jsonb',
  from?: string,
): { sql: string; params: unknown[] } {
  const tuple = `?::uuid, ?, ?, ?, ${envelopeSql}, ?, ?`;
  // `from` names a relation of the statement the insert is part of (a CTE): one row each of its rows.
  const values = from
    ? rows.map(() => `select ${tuple} from ${from}`).join(' union all ')
    : `values ${rows.map(() => `(${tuple})`).join(', ')}`;
  return {
    sql: `insert into outbox_event (event_id, topic, key, type, envelope, traceparent, tracestate) ${values}`,
    params: rows.flatMap((row) => [
      row.eventId,
      row.topic,
      row.key,
      row.type,
      JSON.stringify(row.envelope),
      row.traceparent,
      row.tracestate,
    ]),
  };
}

/**
 * Adds events to the outbox of the transaction in `em`. They are inserted in one statement
 * just before that transaction commits, so they commit or roll back with the change they
 * report, and the relay is woken as soon as it has committed.
 */
@Injectable()
export class OutboxWriter {
  /** Rows waiting for the commit of their transaction. */
  private readonly pending = new WeakMap<object, OutboxRow[]>();

  constructor(
    private readonly hooks: TransactionHooks,
    private readonly relay: OutboxRelay,
  ) {}

  /**
   * Call inside `em.transactional(async (em) => ...)` with the callback's `em`, after the
   * change it reports. Any other EntityManager would write the row outside that transaction
   * (or never), so it is refused.
   */
  add(em: EntityManager, envelope: EventEnvelope): void {
    const transaction = em.getTransactionContext<object>();
    if (!transaction) {
      throw new Error('OutboxWriter.add needs the EntityManager of an em.transactional(...) callback');
    }
    let rows = this.pending.get(transaction);
    if (!rows) {
      const batch: OutboxRow[] = (rows = []);
      this.pending.set(transaction, batch);
      this.hooks.before(
        em,
        async (root, rootTransaction) => {
          this.pending.delete(transaction);
          if (batch.length === 0) return;
          const { sql, params } = outboxInsert(batch);
          await root.getConnection().execute(sql, params, 'run', rootTransaction);
        },
        { last: true },
      );
      this.hooks.after(em, () => this.relay.wake());
    }
    rows.push(outboxRow(envelope));
  }

  /**
   * The rows added so far in `em`'s transaction, for a caller that inserts them within a
   * statement of its own (`outboxInsert`); they are no longer inserted at commit. The relay is
   * still woken when the transaction commits.
   */
  take(em: EntityManager): OutboxRow[] {
    const transaction = em.getTransactionContext<object>();
    const rows = transaction === undefined ? undefined : this.pending.get(transaction);
    return rows ? rows.splice(0) : [];
  }

  /** A statement that inserted outbox rows itself (`outboxInsert`) has committed: publish them now. */
  committed(): void {
    this.relay.wake();
  }
}
