import type { EntityManager } from '@mikro-orm/postgresql';
import { Injectable } from '@nestjs/common';
import { causedBy, OrderPlaced, type EnvelopeOf } from '@petstore/contracts';
import { EventHandler, type EventHandlerOf } from '@petstore/messaging';
import { INVENTORY_PRODUCER } from '../config';
import { ReservationsService } from './reservations.service';

/** Decides the order with the pet's entry locked: concurrent orders never take more units than exist. */
@EventHandler(OrderPlaced)
@Injectable()
export class OrderPlacedHandler implements EventHandlerOf<typeof OrderPlaced> {
  constructor(private readonly reservations: ReservationsService) {}

  async handle(event: EnvelopeOf<typeof OrderPlaced>, em: EntityManager): Promise<void> {
    await this.reservations.decide(em, event.payload, causedBy(event, INVENTORY_PRODUCER));
  }
}
