import type { EntityManager } from '@mikro-orm/postgresql';
import { Injectable } from '@nestjs/common';
import { PetDeleted, type EnvelopeOf } from '@petstore/contracts';
import { EventHandler, type EventHandlerOf } from '@petstore/messaging';
import { InventoryService } from './inventory.service';

@EventHandler(PetDeleted)
@Injectable()
export class PetDeletedHandler implements EventHandlerOf<typeof PetDeleted> {
  constructor(private readonly inventory: InventoryService) {}

  async handle(event: EnvelopeOf<typeof PetDeleted>, em: EntityManager): Promise<void> {
    await this.inventory.petDeleted(em, event.payload.petId);
  }
}
