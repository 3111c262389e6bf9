import type { EntityManager } from '@mikro-orm/postgresql';
import { Injectable } from '@nestjs/common';
import { causedBy, PetCreated, PetDeleted, PetUpdated, type EnvelopeOf, type EventEnvelope } from '@petstore/contracts';
import { EventHandler, type EventHandlerOf } from '@petstore/messaging';
import { INVENTORY_PRODUCER } from '../config';
import { createEntries, tombstoneEntries } from './entries';
import { StockBatches } from './stock-batches';
import { catalogStatusAction } from './stock-rules';

type PetEvent = typeof PetCreated | typeof PetUpdated | typeof PetDeleted;

const meta = (event: EventEnvelope) => causedBy(event, INVENTORY_PRODUCER);

/**
 * The catalog's pets: an entry per pet (an update also creates one, should PetCreated have
 * been missed), a client's status mirrored onto it, a tombstone for a deleted pet. Orders that
 * waited for a pet's entry are decided as soon as it exists.
 */
@EventHandler(PetCreated, PetUpdated, PetDeleted)
@Injectable()
export class PetEventsHandler implements EventHandlerOf<PetEvent> {
  constructor(private readonly stock: StockBatches) {}

  async handleBatch(events: EnvelopeOf<PetEvent>[], em: EntityManager): Promise<void> {
    const petId = (event: EnvelopeOf<PetEvent>) => (PetDeleted.is(event) ? event.payload.petId : event.payload.pet.id);
    // Creations and tombstones commute (a tombstone is never undone), so each is one statement.
    await createEntries(
      em,
      events.flatMap((event) => (PetDeleted.is(event) ? [] : [event.payload.pet])),
    );
    await tombstoneEntries(em, events.filter((event) => PetDeleted.is(event)).map(petId));
    const batch = this.stock.of(em);
    const petIds = events.map(petId);
    await batch.load(petIds);
    for (const event of events) {
      if (!PetUpdated.is(event)) continue;
      const entry = batch.entry(event.payload.pet.id);
      if (!entry) continue;
      const action = catalogStatusAction(event, entry);
      if (action === 'mirror') batch.mirrorStatus(entry.petId, event.payload.pet.status);
      else if (action === 'answer') batch.publishStatus(entry.petId, meta(event));
    }
    await batch.decideParked(petIds, meta);
  }
}
