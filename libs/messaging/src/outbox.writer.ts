import { Injectable } from '@nestjs/common';
import type { EntityManager } from '@mikro-orm/postgresql';
import { executePrepared } from '@petstore/database';
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

/** One statement, the same text for any number of rows. */
export function outboxInsert(rows: OutboxRow[]): { sql: string; params: unknown[] } {
  return {
    sql: `insert into outbox_event (event_id, topic, key, type, envelope, traceparent, tracestate)
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
          await executePrepared(root, sql, params, rootTransaction);
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
