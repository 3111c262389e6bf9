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

  /**
   * `lock` and whether the order already has a reservation, in one round trip. Every
   * reservation of the pet is written with its entry locked, so the entry's lock covers the
   * order's reservation too. Undefined when the pet has no entry: the caller goes the long way.
   * The entry comes back unmanaged: `reserve` writes it, not the unit of work.
   */
  async lockWithReservationOf(
    em: EntityManager,
    petId: number,
    orderId: number,
  ): Promise<{ entry: InventoryEntry; decided: boolean } | undefined> {
    const [row] = await em.execute<Record<string, unknown>[]>(
      `select e.*, r.order_id is not null as reservation_exists
       from inventory_entry e left join reservation r on r.order_id = ?
       where e.pet_id = ? for update of e`,
      [orderId, petId],
    );
    if (!row) return undefined;
    const entry = Object.assign(new InventoryEntry(), {
      petId: Number(row.pet_id),
      quantity: row.quantity as number,
      status: row.status as InventoryEntry['status'],
      deleted: row.deleted as boolean,
      lastRecomputeEventId: row.last_recompute_event_id as string | null,
    });
    return { entry, decided: row.reservation_exists === true };
  }

  /**
   * An order's units taken from an unmanaged entry (see `lockWithReservationOf`), recomputed
   * and written with the reservation: one statement unless the pet has no free units left,
   * when the recompute must see the reservation among the open ones first.
   */
  async reserve(
    em: EntityManager,
    entry: InventoryEntry,
    { orderId, quantity }: { orderId: number; quantity: number },
    meta: EventMeta,
  ): Promise<void> {
    const insertReservation = `insert into reservation (order_id, pet_id, quantity, state) values (?, ?, ?, 'reserved')`;
    const reservationParams = [orderId, entry.petId, quantity];
    const updateEntry = `update inventory_entry set quantity = ?, status = ?, last_recompute_event_id = ?, updated_at = now()
       where pet_id = ?`;
    if (entry.quantity <= 0) {
      await em.execute(insertReservation, reservationParams);
      await this.recompute(em, entry, meta);
      await em.execute(updateEntry, [entry.quantity, entry.status, entry.lastRecomputeEventId, entry.petId]);
      return;
    }
    await this.recompute(em, entry, meta);
    await em.execute(`with reserved as (${insertReservation}) ${updateEntry}`, [
      ...reservationParams,
      entry.quantity,
      entry.status,
      entry.lastRecomputeEventId,
      entry.petId,
    ]);
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
