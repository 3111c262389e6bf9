import type { EntityManager } from '@mikro-orm/postgresql';
import { Injectable } from '@nestjs/common';
import { causedBy, PetDeleted, type EnvelopeOf } from '@petstore/contracts';
import { EventHandler, type EventHandlerOf } from '@petstore/messaging';
import { ORDERS_PRODUCER } from '../config';
import { KnownPetsService } from '../pets/known-pets.service';
import { OrderSagaService } from './order-saga.service';

/**
 * A deleted pet's open orders are cancelled. The replica is marked first: that write waits
 * for any order being placed for the pet right now, so the cancellation sees that order too.
 */
@EventHandler(PetDeleted)
@Injectable()
export class PetDeletedHandler implements EventHandlerOf<typeof PetDeleted> {
  constructor(
    private readonly pets: KnownPetsService,
    private readonly orders: OrderSagaService,
  ) {}

  async handleBatch(events: EnvelopeOf<typeof PetDeleted>[], em: EntityManager): Promise<void> {
    await this.pets.forget(
      em,
      events.map((event) => event.payload.petId),
    );
    await this.orders.cancelOpenOrdersOf(
      em,
      events.map((event) => ({ petId: event.payload.petId, meta: causedBy(event, ORDERS_PRODUCER) })),
    );
  }
}
