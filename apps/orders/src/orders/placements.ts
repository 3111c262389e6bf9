import { MikroORM, type EntityManager } from '@mikro-orm/postgresql';
import { Injectable } from '@nestjs/common';
import { OrderPlaced, type EnvelopeOf } from '@petstore/contracts';
import { executePrepared, poolEntityManager } from '@petstore/database';
import { OutboxWriter, outboxRow, type OutboxRow } from '@petstore/messaging';

export interface NewOrderRow {
  petId: number;
  quantity: number;
  shipDate: Date | null;
}

/** An order to place and the outbox row of its OrderPlaced, built with a stand-in id. */
export interface Placement {
  order: NewOrderRow;
  row: OutboxRow;
}

interface Pending extends Placement {
  resolve(id: number | undefined): void;
  reject(error: unknown): void;
}

/** Most orders one statement places. */
const MAX_BATCH = 500;

/**
 * Places orders for pets known to exist, with their OrderPlaced, several requests to a
 * statement: one goes to the database at once; those that arrive while it runs go together in
 * the next. Quiet, a request waits for nobody; busy, the database commits once for many orders
 * and the relay is woken once for all of them. Each order commits on its own terms: a pet not
 * known (or deleted) places nothing for that request and the others go on.
 */
@Injectable()
export class Placements {
  private waiting: Pending[] = [];
  private running = false;
  private readonly pool: EntityManager;

  constructor(
    orm: MikroORM,
    private readonly outbox: OutboxWriter,
  ) {
    this.pool = poolEntityManager(orm);
  }

  /**
   * The order's id, or undefined when its pet is not known (or deleted). `event` is the
   * order's OrderPlaced built with a stand-in id: the statement puts in the one the database
   * gives the order.
   */
  place(order: NewOrderRow, event: EnvelopeOf<typeof OrderPlaced>): Promise<number | undefined> {
    return new Promise((resolve, reject) => {
      // The row is made here, in the request's own context, so the event joins the request's trace.
      this.waiting.push({ order, row: outboxRow(event), resolve, reject });
      if (!this.running) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.running = true;
    try {
      while (this.waiting.length > 0) {
        const batch = this.waiting.splice(0, MAX_BATCH);
        try {
          const ids = await insertOrders(this.pool, batch);
          this.outbox.committed();
          batch.forEach((pending, index) => pending.resolve(ids.get(index)));
        } catch (error) {
          for (const pending of batch) pending.reject(error);
        }
      }
    } finally {
      this.running = false;
    }
  }
}

/** The OrderPlaced of each numbered order, with the id the database gave it. */
const PUBLISH_PLACED = OutboxWriter.insertFrom('numbered', {
  envelope: "jsonb_set(envelope, '{payload,orderId}', to_jsonb(id))",
  orderBy: 'n',
});

/**
 * One statement, in `em`'s transaction if it has one: the pets' replica rows share-locked (a
 * PetDeleted being applied waits for these orders and then cancels them too), each order of a
 * known pet given its id, the orders and their events inserted. Answers the id of each placed
 * order by its index in `placements`; an order whose pet is not known (or deleted) has none.
 */
export async function insertOrders(em: EntityManager, placements: Placement[]): Promise<Map<number, number>> {
  const column = <T>(pick: (placement: Placement, index: number) => T) => placements.map(pick);
  const rows = await executePrepared<{ n: number; id: string }>(
    em,
    `with input as (
       select * from unnest(
         ?::integer[], ?::bigint[], ?::integer[], ?::timestamptz[],
         ?::uuid[], ?::text[], ?::text[], ?::text[], ?::jsonb[], ?::text[], ?::text[]
       ) as i(n, pet_id, quantity, ship_date, event_id, topic, key, type, envelope, traceparent, tracestate)
     ), known as (
       select pet_id from known_pet where pet_id in (select pet_id from input) and not deleted order by pet_id for share
     ), numbered as materialized (
       select i.*, nextval('store_order_id_seq') as id from input i join known using (pet_id) order by i.n
     ), placed as (
       insert into store_order (id, pet_id, quantity, ship_date) select id, pet_id, quantity, ship_date from numbered
     ), published as (
       ${PUBLISH_PLACED}
     )
     select n, id from numbered`,
    [
      column((_, index) => index),
      column((pending) => pending.order.petId),
      column((pending) => pending.order.quantity),
      column((pending) => pending.order.shipDate?.toISOString() ?? null),
      column((pending) => pending.row.eventId),
      column((pending) => pending.row.topic),
      column((pending) => pending.row.key),
      column((pending) => pending.row.type),
      column((pending) => JSON.stringify(pending.row.envelope)),
      column((pending) => pending.row.traceparent),
      column((pending) => pending.row.tracestate),
    ],
  );
  return new Map(rows.map((row) => [Number(row.n), Number(row.id)]));
}
