import type { EntityManager } from '@mikro-orm/postgresql';
import { Injectable } from '@nestjs/common';
import { PetUpdated, type EnvelopeOf } from '@petstore/contracts';
import { EventHandler, type EventHandlerOf } from '@petstore/messaging';
import { InventoryService } from './inventory.service';

@EventHandler(PetUpdated)
@Injectable()
export class PetUpdatedHandler implements EventHandlerOf<typeof PetUpdated> {
  constructor(private readonly inventory: InventoryService) {}

  async handle(event: EnvelopeOf<typeof PetUpdated>, em: EntityManager): Promise<void> {
    await this.inventory.petUpdated(em, event.payload.pet, event.causationId);
  }
}
