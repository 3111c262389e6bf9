import type { EntityManager } from '@mikro-orm/postgresql';
import { Injectable } from '@nestjs/common';
import { causedBy, PetStatusRecomputed, type EnvelopeOf } from '@petstore/contracts';
import { EventHandler, type EventHandlerOf } from '@petstore/messaging';
import { CATALOG_PRODUCER } from '../config';
import { PetsService } from './pets.service';

/** Inventory recomputed the pets' statuses from their stock and orders: the catalog's pets follow. */
@EventHandler(PetStatusRecomputed)
@Injectable()
export class PetStatusRecomputedHandler implements EventHandlerOf<typeof PetStatusRecomputed> {
  constructor(private readonly pets: PetsService) {}

  async handleBatch(events: EnvelopeOf<typeof PetStatusRecomputed>[], em: EntityManager): Promise<void> {
    await this.pets.applyStatuses(
      em,
      events.map((event) => ({ ...event.payload, meta: causedBy(event, CATALOG_PRODUCER) })),
    );
  }
}
