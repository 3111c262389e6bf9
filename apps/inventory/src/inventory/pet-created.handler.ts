import type { EntityManager } from '@mikro-orm/postgresql';
import { Injectable } from '@nestjs/common';
import { PetCreated, type EnvelopeOf } from '@petstore/contracts';
import { EventHandler, type EventHandlerOf } from '@petstore/messaging';
import { InventoryService } from './inventory.service';

@EventHandler(PetCreated)
@Injectable()
export class PetCreatedHandler implements EventHandlerOf<typeof PetCreated> {
  constructor(private readonly inventory: InventoryService) {}

  async handle(event: EnvelopeOf<typeof PetCreated>, em: EntityManager): Promise<void> {
    await this.inventory.petCreated(em, event.payload.pet);
  }
}
