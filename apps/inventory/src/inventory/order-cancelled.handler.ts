import type { EntityManager } from '@mikro-orm/postgresql';
import { Injectable } from '@nestjs/common';
import { causedBy, OrderCancelled, type EnvelopeOf } from '@petstore/contracts';
import { EventHandler, type EventHandlerOf } from '@petstore/messaging';
import { INVENTORY_PRODUCER } from '../config';
import { ReservationsService } from './reservations.service';

@EventHandler(OrderCancelled)
@Injectable()
export class OrderCancelledHandler implements EventHandlerOf<typeof OrderCancelled> {
  constructor(private readonly reservations: ReservationsService) {}

  async handle(event: EnvelopeOf<typeof OrderCancelled>, em: EntityManager): Promise<void> {
    await this.reservations.release(em, event.payload, causedBy(event, INVENTORY_PRODUCER));
  }
}
