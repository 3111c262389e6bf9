import { LockMode } from '@mikro-orm/core';
import { EntityManager, type FilterQuery } from '@mikro-orm/postgresql';
import { Injectable } from '@nestjs/common';
import type {
  InventoryItem,
  InventoryItemQuery,
  ListInventoryQuery,
  Page,
  Pet,
  SetStockCommand,
} from '@petstore/contracts';
import { DomainError, pageCursor, pageLimit, pageOf, parsePathId } from '@petstore/service-kit';
import { INVENTORY_PRODUCER } from '../config';
import { InventoryEntries, toInventoryItem } from './inventory-entries';
import { InventoryEntry } from './inventory-entry.entity';
import { MAX_STOCK, mirrorsCatalogStatus } from './stock-rules';

function itemNotFound(petId: string | number): DomainError {
  return new DomainError(404, 'INVENTORY_ITEM_NOT_FOUND', `Pet ${petId} has no inventory entry`);
}

/**
 * RPC methods expect a request context (the controller creates one per message); the
 * methods that react to the catalog's events run in the consumer's transaction (`em`).
 */
@Injectable()
export class InventoryService {
  constructor(
    private readonly em: EntityManager,
    private readonly entries: InventoryEntries,
  ) {}

  async list(query: ListInventoryQuery): Promise<Page<InventoryItem>> {
    const limit = pageLimit(query.limit);
    const where: FilterQuery<InventoryEntry> = { petId: { $gt: pageCursor(query.after) }, deleted: false };
    if (query.status?.length) where.status = { $in: query.status };
    const rows = await this.em.find(InventoryEntry, where, { orderBy: { petId: 'asc' }, limit: limit + 1 });
    return pageOf(rows.map(toInventoryItem), limit);
  }

  /** A pet created a moment ago has an entry at once, even before its PetCreated arrives. */
  async get({ petId: id, requestId }: InventoryItemQuery): Promise<InventoryItem> {
    const petId = parsePathId(id);
    if (petId === undefined) throw itemNotFound(id);
    const entry = await this.em.findOne(InventoryEntry, petId);
    if (entry) {
      if (entry.deleted) throw itemNotFound(id);
      return toInventoryItem(entry);
    }
    return this.em.transactional(async (em) => {
      const created = await this.entries.lock(em, petId, { requestId });
      if (!created || created.deleted) throw itemNotFound(id);
      return toInventoryItem(created);
    });
  }

  async setStock({ petId: id, quantity, requestId }: SetStockCommand): Promise<InventoryItem> {
    if (!Number.isInteger(quantity) || quantity < 0 || quantity > MAX_STOCK) {
      throw new DomainError(400, 'VALIDATION_FAILED', 'The stock count is not valid', [
        { field: 'quantity', message: `must be an integer from 0 to ${MAX_STOCK}` },
      ]);
    }
    const petId = parsePathId(id);
    if (petId === undefined) throw itemNotFound(id);
    return this.em.transactional(async (em) => {
      const entry = await this.entries.lock(em, petId, { requestId });
      if (!entry || entry.deleted) throw itemNotFound(id);
      entry.quantity = quantity;
      await this.entries.recompute(em, entry, { producer: INVENTORY_PRODUCER, correlationId: requestId });
      return toInventoryItem(entry);
    });
  }

  /** PetCreated. */
  async petCreated(em: EntityManager, pet: Pet): Promise<void> {
    await this.entries.create(em, pet.id, pet.status);
  }

  /** PetUpdated: a status set through the catalog holds until the next change of stock or open orders. */
  async petUpdated(em: EntityManager, pet: Pet, causationId: string | null): Promise<void> {
    await this.entries.create(em, pet.id, pet.status);
    const entry = await em.findOne(InventoryEntry, pet.id, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
    if (!entry || entry.deleted) return;
    if (mirrorsCatalogStatus(causationId, entry.lastRecomputeEventId)) entry.status = pet.status;
  }

  /** PetDeleted: the entry goes (as a tombstone). Orders cancels the pet's open orders, which gives their units back. */
  async petDeleted(em: EntityManager, petId: number): Promise<void> {
    await em.execute(
      `insert into inventory_entry (pet_id, quantity, status, deleted) values (?, 0, 'sold', true)
       on conflict (pet_id) do update set deleted = true, updated_at = now()`,
      [petId],
    );
  }
}
