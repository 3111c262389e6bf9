import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Injectable } from '@nestjs/common';
import { CatalogClient } from '@petstore/catalog-client';
import { PetStatusRecomputed, type EventMeta, type InventoryItem } from '@petstore/contracts';
import { OutboxWriter } from '@petstore/messaging';
import { InventoryEntry } from './inventory-entry.entity';
import { Reservation } from './reservation.entity';
import { recomputeStatus } from './stock-rules';

export function toInventoryItem(entry: InventoryEntry): InventoryItem {
  return { petId: entry.petId, quantity: entry.quantity, status: entry.status };
}

/** Reading, creating and recomputing entries inside the caller's transaction. */
@Injectable()
export class InventoryEntries {
  constructor(
    private readonly outbox: OutboxWriter,
    private readonly catalog: CatalogClient,
  ) {}

  /**
   * The pet's entry, row-locked until the transaction ends: every change of a pet's stock
   * runs one after another, so concurrent orders never take more units than exist.
   * With `askCatalog`, a pet whose PetCreated has not arrived yet (read your writes) gets
   * its entry from the catalog's answer. A tombstone is returned as it is.
   */
  async lock(em: EntityManager, petId: number, askCatalog?: { requestId: string }): Promise<InventoryEntry | null> {
    const entry = await this.lockRow(em, petId);
    if (entry || !askCatalog) return entry;
    const pet = await this.catalog.findPet(petId, askCatalog.requestId);
    if (!pet) return null;
    await this.create(em, petId, pet.status);
    return this.lockRow(em, petId);
  }

  /** Creation is not a stock change: quantity 0, the pet's own status, no recompute. Never revives a tombstone. */
  async create(em: EntityManager, petId: number, status: InventoryEntry['status']): Promise<void> {
    await em.execute(
      'insert into inventory_entry (pet_id, quantity, status) values (?, 0, ?) on conflict (pet_id) do nothing',
      [petId, status],
    );
  }

  /**
   * After a change of stock or of open orders: the status follows from the free units and
   * the open reservations. The result is published every time, even when unchanged, so the
   * catalog's pet also converges after a client's status change crossed this one.
   */
  async recompute(em: EntityManager, entry: InventoryEntry, meta: EventMeta): Promise<void> {
    // Only a pet without free units asks about open reservations, and then the count must see
    // this unit of work's own; otherwise everything is written once, at commit.
    let open = false;
    if (entry.quantity <= 0) {
      await em.flush();
      open = (await em.count(Reservation, { petId: entry.petId, state: 'reserved' })) > 0;
    }
    entry.status = recomputeStatus(entry.quantity, open);
    const event = PetStatusRecomputed.create({ petId: entry.petId, status: entry.status, quantity: entry.quantity }, meta);
    entry.lastRecomputeEventId = event.eventId;
    this.outbox.add(em, event);
  }

  private lockRow(em: EntityManager, petId: number): Promise<InventoryEntry | null> {
    return em.findOne(InventoryEntry, petId, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
  }
}
