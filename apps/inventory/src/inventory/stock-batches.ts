import type { EntityManager } from '@mikro-orm/postgresql';
import { Injectable } from '@nestjs/common';
import { transactionOf } from '@petstore/database';
import { OutboxWriter, TransactionHooks } from '@petstore/messaging';
import { StockBatch } from './stock-batch';

/** The stock batch of each transaction: created on first use, written just before it commits. */
@Injectable()
export class StockBatches {
  private readonly batches = new WeakMap<object, StockBatch>();

  constructor(
    private readonly outbox: OutboxWriter,
    private readonly hooks: TransactionHooks,
  ) {}

  of(em: EntityManager): StockBatch {
    const transaction = transactionOf(em, 'A stock batch needs');
    let batch = this.batches.get(transaction);
    if (!batch) {
      const created = (batch = new StockBatch(em, this.outbox));
      this.batches.set(transaction, created);
      this.hooks.before(em, () => created.flush());
    }
    return batch;
  }
}
