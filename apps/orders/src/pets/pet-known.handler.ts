import type { EntityManager } from '@mikro-orm/postgresql';
import { Injectable } from '@nestjs/common';
import { PetCreated, PetUpdated, type EnvelopeOf } from '@petstore/contracts';
import { EventHandler, type EventHandlerOf } from '@petstore/messaging';
import { KnownPetsService } from './known-pets.service';

/** Only a pet's existence matters here; an update also proves it, should PetCreated have been missed. */
@EventHandler(PetCreated, PetUpdated)
@Injectable()
export class PetKnownHandler implements EventHandlerOf<typeof PetCreated | typeof PetUpdated> {
  constructor(private readonly pets: KnownPetsService) {}

  async handleBatch(events: EnvelopeOf<typeof PetCreated | typeof PetUpdated>[], em: EntityManager): Promise<void> {
    await this.pets.remember(em, [...new Set(events.map((event) => event.payload.pet.id))]);
  }
}
