import type { EntityManager } from '@mikro-orm/postgresql';
import { Injectable } from '@nestjs/common';
import { StockReservationRejected, StockReserved, type EnvelopeOf } from '@petstore/contracts';
import { EventHandler, type EventHandlerOf } from '@petstore/messaging';
import { OrderSagaService } from './order-saga.service';

type StockDecision = typeof StockReserved | typeof StockReservationRejected;

/** The inventory's answers to OrderPlaced: every order of the batch decided in one statement. */
@EventHandler(StockReserved, StockReservationRejected)
@Injectable()
export class StockDecisionHandler implements EventHandlerOf<StockDecision> {
  constructor(private readonly orders: OrderSagaService) {}

  async handleBatch(events: EnvelopeOf<StockDecision>[], em: EntityManager): Promise<void> {
    await this.orders.decide(
      em,
      events.map((event) => ({
        orderId: event.payload.orderId,
        reason: StockReservationRejected.is(event) ? event.payload.reason : null,
      })),
    );
  }
}
