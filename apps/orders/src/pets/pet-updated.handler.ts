import type { EntityManager } from '@mikro-orm/postgresql';
import { Injectable } from '@nestjs/common';
import { PetUpdated, type EnvelopeOf } from '@petstore/contracts';
import { EventHandler, type EventHandlerOf } from '@petstore/messaging';
import { KnownPetsService } from './known-pets.service';

/** Only the pet's existence matters here; an update also proves it, should PetCreated have been missed. */
@EventHandler(PetUpdated)
@Injectable()
export class PetUpdatedHandler implements EventHandlerOf<typeof PetUpdated> {
  constructor(private readonly pets: KnownPetsService) {}

  async handle(event: EnvelopeOf<typeof PetUpdated>, em: EntityManager): Promise<void> {
    await this.pets.remember(em, event.payload.pet.id);
  }
}
