import type { EntityManager } from '@mikro-orm/postgresql';
import { Injectable } from '@nestjs/common';
import {
  PetCreated,
  PetDeleted,
  PetUpdated,
  type EventMeta,
  type Pet as PetView,
  type PetStatus,
} from '@petstore/contracts';
import { OutboxWriter } from '@petstore/messaging';
import { CATALOG_PRODUCER } from '../config';

/** Metadata of an event caused by a client's request: the request id correlates the chain. */
export function requestMeta(requestId: string): EventMeta {
  return { producer: CATALOG_PRODUCER, correlationId: requestId };
}

/**
 * Writes the pet's events to the outbox through the caller's transactional EntityManager,
 * so that they commit (or roll back) together with the change they describe.
 */
@Injectable()
export class PetEvents {
  constructor(private readonly outbox: OutboxWriter) {}

  created(em: EntityManager, pet: PetView, meta: EventMeta): void {
    this.outbox.add(em, PetCreated.create({ pet }, meta));
  }

  updated(em: EntityManager, pet: PetView, previousStatus: PetStatus, meta: EventMeta): void {
    this.outbox.add(em, PetUpdated.create({ pet, previousStatus }, meta));
  }

  deleted(em: EntityManager, petId: number, meta: EventMeta): void {
    this.outbox.add(em, PetDeleted.create({ petId }, meta));
  }
}
