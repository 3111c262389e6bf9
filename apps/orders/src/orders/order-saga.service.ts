import type { EntityManager } from '@mikro-orm/postgresql';
import { Injectable, Logger } from '@nestjs/common';
import { OrderCancelled, type EventMeta, type OrderStatus, type RejectionReason } from '@petstore/contracts';
import { executePrepared } from '@petstore/database';
import { OutboxWriter, TransactionHooks } from '@petstore/messaging';
import { announcement, DecisionWaits } from './decision-waits';
import { orderDecisionSeconds, ordersCancelled, ordersDecided } from './orders.metrics';

/** An inventory decision: approved without a reason, rejected with one. */
export interface Decision {
  orderId: number;
  reason: RejectionReason | null;
}

/**
 * What other services' events do to orders, in the consumer's transaction (`em`), as sets: the
 * inventory's decisions and the cancellation of a deleted pet's open orders.
 */
@Injectable()
export class OrderSagaService {
  private readonly logger = new Logger(OrderSagaService.name);

  constructor(
    private readonly outbox: OutboxWriter,
    private readonly hooks: TransactionHooks,
    private readonly waits: DecisionWaits,
  ) {}

  /**
   * The inventory's decisions, in one statement: the condition on the status plays the part
   * of the row lock and the transition check, so a concurrent cancel either went first
   * (nothing changes here: the cancellation gives the stock back) or waits for this one.
   */
  async decide(em: EntityManager, decisions: Decision[]): Promise<void> {
    if (decisions.length === 0) return;
    const announce = announcement('decided');
    const decided = await executePrepared<{ id: string; status: OrderStatus; seconds: number }>(
      em,
      `with decided as (
         update store_order o set status = d.status, rejection_reason = d.reason, updated_at = now()
           from unnest(?::bigint[], ?::text[], ?::text[]) as d(id, status, reason)
          where o.id = d.id and o.status = 'placed'
         returning o.id, o.status, o.rejection_reason, extract(epoch from now() - o.created_at)::float8 as seconds
       ), announced as (${announce.sql})
       select id, status, seconds, (select count(*) from announced) as announcements from decided`,
      [
        decisions.map((decision) => decision.orderId),
        decisions.map((decision) => (decision.reason ? 'rejected' : 'approved')),
        decisions.map((decision) => decision.reason),
        ...announce.params,
      ],
      // store_order grows with every order, and a plan cached while it was small walks the status index's `placed` range.
      { plan: 'each call' },
    );
    if (decided.length < decisions.length) {
      this.logger.debug(`${decisions.length - decided.length} decision(s) for orders no longer placed ignored`);
    }
    this.hooks.after(em, () => {
      for (const row of decided) {
        ordersDecided.inc({ status: row.status });
        orderDecisionSeconds.observe(row.seconds);
      }
    });
  }

  /** PetDeleted: the pets' open orders are cancelled, and inventory hears of each. Their past orders stay as they are. */
  async cancelOpenOrdersOf(em: EntityManager, causes: { petId: number; meta: EventMeta }[]): Promise<void> {
    const metaOf = new Map(causes.map(({ petId, meta }) => [petId, meta]));
    const cancelled = await executePrepared<{
      id: string;
      pet_id: string;
      quantity: number;
      previous_status: 'placed' | 'approved';
    }>(
      em,
      `update store_order o set status = 'cancelled', updated_at = now()
         from (select id, status from store_order
                where pet_id = any(?::bigint[]) and status in ('placed', 'approved')
                order by id for update) before
        where o.id = before.id
       returning o.id, o.pet_id, o.quantity, before.status as previous_status`,
      [[...metaOf.keys()]],
      { plan: 'each call' },
    );
    for (const row of cancelled.sort((a, b) => Number(a.id) - Number(b.id))) {
      const petId = Number(row.pet_id);
      this.outbox.add(
        em,
        OrderCancelled.create(
          { orderId: Number(row.id), petId, quantity: row.quantity, previousStatus: row.previous_status },
          metaOf.get(petId) as EventMeta,
        ),
      );
    }
    await this.waits.announce(
      em,
      cancelled.filter((row) => row.previous_status === 'placed').map((row) => Number(row.id)),
    );
    this.hooks.after(em, () => ordersCancelled.inc(cancelled.length));
  }
}
