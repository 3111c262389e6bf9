import { Injectable, type OnModuleInit } from '@nestjs/common';
import type { EventSubscriber, TransactionEventArgs } from '@mikro-orm/core';
import { MikroORM, type EntityManager } from '@mikro-orm/postgresql';
import { findEventDefinition, type EventEnvelope } from '@petstore/contracts';
import { OutboxEvent } from './outbox-event.entity';
import { OutboxRelay } from './outbox.relay';

/**
 * Adds events to the outbox of the unit of work in `em`. They are stored when `em` flushes,
 * in the same transaction as the change they report, and the relay is woken as soon as that
 * transaction commits. A rollback leaves no trace of them.
 */
@Injectable()
export class OutboxWriter implements OnModuleInit {
  /** Root transactions that wrote outbox rows and have not committed yet. */
  private readonly pendingTransactions = new WeakSet<object>();

  constructor(
    private readonly orm: MikroORM,
    private readonly relay: OutboxRelay,
  ) {}

  onModuleInit(): void {
    const subscriber: EventSubscriber = {
      afterTransactionCommit: (args: TransactionEventArgs) => this.afterCommit(args),
    };
    // Forks share or clone the global EntityManager's event manager, so every unit of work sees it.
    this.orm.em.getEventManager().registerSubscriber(subscriber);
  }

  /**
   * Call inside `em.transactional(async (em) => ...)` with the callback's `em`, after the
   * change it reports. Any other EntityManager would write the row outside that transaction
   * (or never), so it is refused.
   */
  add(em: EntityManager, envelope: EventEnvelope): OutboxEvent {
    const transaction = em.getTransactionContext<object>();
    if (!transaction) {
      throw new Error('OutboxWriter.add needs the EntityManager of an em.transactional(...) callback');
    }
    const definition = findEventDefinition(envelope.type);
    if (!definition) throw new Error(`Unknown event type ${envelope.type}: define it in @petstore/contracts`);
    const row = new OutboxEvent(definition.topic, envelope);
    em.persist(row);
    this.pendingTransactions.add(rootTransaction(transaction));
    return row;
  }

  private afterCommit({ transaction }: TransactionEventArgs): void {
    if (transaction !== undefined && this.pendingTransactions.delete(transaction as object)) this.relay.wake();
  }
}

/**
 * A nested `em.transactional` runs in a savepoint whose context points at its parent
 * through a symbol property; commit hooks fire only for the outermost transaction. Should
 * that private link ever change, the inner context is used and the relay's one-second
 * sweep still publishes the rows.
 */
function rootTransaction(transaction: object): object {
  let current = transaction as Record<symbol, unknown>;
  for (;;) {
    const link = Object.getOwnPropertySymbols(current).find((symbol) => symbol.description === 'parentTransaction');
    const parent = link ? current[link] : undefined;
    if (!parent || (typeof parent !== 'function' && typeof parent !== 'object')) return current;
    current = parent as Record<symbol, unknown>;
  }
}
