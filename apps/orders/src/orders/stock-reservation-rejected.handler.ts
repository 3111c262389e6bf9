import type { EntityManager } from '@mikro-orm/postgresql';
import { Injectable } from '@nestjs/common';
import { StockReservationRejected, type EnvelopeOf } from '@petstore/contracts';
import { EventHandler, type EventHandlerOf } from '@petstore/messaging';
import { OrdersService } from './orders.service';

@EventHandler(StockReservationRejected)
@Injectable()
export class StockReservationRejectedHandler implements EventHandlerOf<typeof StockReservationRejected> {
  constructor(private readonly orders: OrdersService) {}

  async handle(event: EnvelopeOf<typeof StockReservationRejected>, em: EntityManager): Promise<void> {
    await this.orders.reject(em, event.payload.orderId, event.payload.reason);
  }
}
