import type { EntityManager } from '@mikro-orm/postgresql';
import { Injectable } from '@nestjs/common';
import { PetCreated, type EnvelopeOf } from '@petstore/contracts';
import { EventHandler, type EventHandlerOf } from '@petstore/messaging';
import { KnownPetsService } from './known-pets.service';

@EventHandler(PetCreated)
@Injectable()
export class PetCreatedHandler implements EventHandlerOf<typeof PetCreated> {
  constructor(private readonly pets: KnownPetsService) {}

  async handle(event: EnvelopeOf<typeof PetCreated>, em: EntityManager): Promise<void> {
    await this.pets.remember(em, event.payload.pet.id);
  }
}
