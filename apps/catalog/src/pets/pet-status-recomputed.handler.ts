import type { EntityManager } from '@mikro-orm/postgresql';
import { Injectable } from '@nestjs/common';
import { causedBy, PetStatusRecomputed, type EnvelopeOf } from '@petstore/contracts';
import { EventHandler, type EventHandlerOf } from '@petstore/messaging';
import { CATALOG_PRODUCER } from '../config';
import { PetsService } from './pets.service';

/** Inventory recomputed the pet's status from its stock and orders: the catalog's pet follows. */
@EventHandler(PetStatusRecomputed)
@Injectable()
export class PetStatusRecomputedHandler implements EventHandlerOf<typeof PetStatusRecomputed> {
  constructor(private readonly pets: PetsService) {}

  async handle(event: EnvelopeOf<typeof PetStatusRecomputed>, em: EntityManager): Promise<void> {
    const { petId, status } = event.payload;
    await this.pets.applyStatus(em, petId, status, causedBy(event, CATALOG_PRODUCER));
  }
}
