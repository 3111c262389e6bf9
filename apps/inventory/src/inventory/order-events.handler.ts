import type { EntityManager } from '@mikro-orm/postgresql';
import { Injectable } from '@nestjs/common';
import {
  causedBy,
  OrderCancelled,
  OrderDelivered,
  OrderPlaced,
  type EnvelopeOf,
  type EventEnvelope,
} from '@petstore/contracts';
import { EventHandler, type EventHandlerOf } from '@petstore/messaging';
import { INVENTORY_PRODUCER } from '../config';
import { ParkedOrders } from './parked-orders';
import { StockBatches } from './stock-batches';

type OrderEvent = typeof OrderPlaced | typeof OrderCancelled | typeof OrderDelivered;

const meta = (event: EventEnvelope) => causedBy(event, INVENTORY_PRODUCER);

/**
 * The orders topic as a set: the batch's entries and reservations are locked and read at once,
 * each event is applied in order in memory, and it all is written back before the commit.
 */
@EventHandler(OrderPlaced, OrderCancelled, OrderDelivered)
@Injectable()
export class OrderEventsHandler implements EventHandlerOf<OrderEvent> {
  constructor(
    private readonly stock: StockBatches,
    private readonly parked: ParkedOrders,
  ) {}

  async handleBatch(events: EnvelopeOf<OrderEvent>[], em: EntityManager): Promise<void> {
    const batch = this.stock.of(em);
    const petIds = events.map((event) => event.payload.petId);
    await batch.load(
      petIds,
      events.map((event) => event.payload.orderId),
    );
    // Orders that waited for their pet's entry go before the ones that came after them.
    await batch.decideParked(petIds, meta);
    for (const event of events) {
      if (OrderPlaced.is(event)) batch.placed(event, meta(event));
      else if (OrderCancelled.is(event)) batch.cancelled(event.payload, meta(event));
      else batch.delivered(event.payload, meta(event));
    }
    if (batch.parkedAny) this.parked.resolveAfterCommit(em);
  }
}
