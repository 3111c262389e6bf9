import type { EntityManager } from '@mikro-orm/postgresql';
import { Injectable } from '@nestjs/common';
import { causedBy, OrderDelivered, type EnvelopeOf } from '@petstore/contracts';
import { EventHandler, type EventHandlerOf } from '@petstore/messaging';
import { INVENTORY_PRODUCER } from '../config';
import { ReservationsService } from './reservations.service';

@EventHandler(OrderDelivered)
@Injectable()
export class OrderDeliveredHandler implements EventHandlerOf<typeof OrderDelivered> {
  constructor(private readonly reservations: ReservationsService) {}

  async handle(event: EnvelopeOf<typeof OrderDelivered>, em: EntityManager): Promise<void> {
    await this.reservations.deliver(em, event.payload, causedBy(event, INVENTORY_PRODUCER));
  }
}
