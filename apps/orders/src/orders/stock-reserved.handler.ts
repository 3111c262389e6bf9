import type { EntityManager } from '@mikro-orm/postgresql';
import { Injectable } from '@nestjs/common';
import { StockReserved, type EnvelopeOf } from '@petstore/contracts';
import { EventHandler, type EventHandlerOf } from '@petstore/messaging';
import { OrdersService } from './orders.service';

@EventHandler(StockReserved)
@Injectable()
export class StockReservedHandler implements EventHandlerOf<typeof StockReserved> {
  constructor(private readonly orders: OrdersService) {}

  async handle(event: EnvelopeOf<typeof StockReserved>, em: EntityManager): Promise<void> {
    await this.orders.approve(em, event.payload.orderId);
  }
}
