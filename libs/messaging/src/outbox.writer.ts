import { Injectable } from '@nestjs/common';
import type { EntityManager } from '@mikro-orm/postgresql';
import { executePrepared, transactionOf } from '@petstore/database';
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

/** The outbox's columns, in the order of every insert into it. */
const OUTBOX_COLUMNS = 'event_id, topic, key, type, envelope, traceparent, tracestate';

/** One statement, the same text for any number of rows. */
function outboxInsert(rows: OutboxRow[]): { sql: string; params: unknown[] } {
  return {
    sql: `insert into outbox_event (${OUTBOX_COLUMNS})
          select * from unnest(?::uuid[], ?::text[], ?::text[], ?::text[], ?::jsonb[], ?::text[], ?::text[])`,
    params: [
      rows.map((row) => row.eventId),
      rows.map((row) => row.topic),
      rows.map((row) => row.key),
      rows.map((row) => row.type),
      rows.map((row) => JSON.stringify(row.envelope)),
      rows.map((row) => row.traceparent),
      rows.map((row) => row.tracestate),
    ],
  };
}

/**
 * The one way to write outbox rows, so that each commits or rolls back with the change it
 * reports and the relay is woken once it has committed:
 * - `add`: the usual one; rows are inserted in one statement just before the commit;
 * - `takeInsert`: the rows added so far, as a part of the caller's own statement;
 * - `insertFrom`: rows the caller's statement selects from one of its relations (with `committed()` after it).
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
    const transaction = transactionOf(em, 'OutboxWriter.add needs');
    let rows = this.pending.get(transaction);
    if (!rows) {
      const batch: OutboxRow[] = (rows = []);
      this.pending.set(transaction, batch);
      this.hooks.before(
        em,
        async (root) => {
          this.pending.delete(transaction);
          if (batch.length === 0) return;
          const { sql, params } = outboxInsert(batch);
          await executePrepared(root, sql, params);
        },
        { last: true },
      );
      this.hooks.after(em, () => this.relay.wake());
    }
    rows.push(outboxRow(envelope));
  }

  /**
   * The rows added so far in `em`'s transaction as one insert, for a caller that runs it within
   * a statement of its own; they are no longer inserted at commit. The relay is still woken
   * when the transaction commits. Undefined when there are none.
   */
  takeInsert(em: EntityManager): { sql: string; params: unknown[] } | undefined {
    const transaction = em.getTransactionContext<object>();
    const rows = transaction === undefined ? undefined : this.pending.get(transaction)?.splice(0);
    return rows?.length ? outboxInsert(rows) : undefined;
  }

  /**
   * An insert (a part of the caller's statement, e.g. a CTE body) of the rows `relation` holds:
   * a relation of that statement with the columns of an OutboxRow (`event_id`, `topic`, `key`,
   * `type`, `envelope`, `traceparent`, `tracestate`), in `orderBy` order. `envelope` may be an
   * expression over the relation (to put in a value the statement computes). Call `committed()`
   * once the statement's transaction has committed.
   */
  static insertFrom(relation: string, { envelope = 'envelope', orderBy }: { envelope?: string; orderBy: string }): string {
    return `insert into outbox_event (${OUTBOX_COLUMNS})
       select event_id, topic, key, type, ${envelope}, traceparent, tracestate from ${relation} order by ${orderBy}`;
  }

  /** A statement that inserted outbox rows itself (`insertFrom`) has committed: publish them now. */
  committed(): void {
    this.relay.wake();
  }
}
