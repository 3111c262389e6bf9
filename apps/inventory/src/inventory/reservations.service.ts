import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Injectable } from '@nestjs/common';
import {
  StockReleased,
  StockReservationRejected,
  StockReserved,
  type EventMeta,
  type OrderCancelledPayload,
  type OrderDeliveredPayload,
  type OrderPlacedPayload,
} from '@petstore/contracts';
import { OutboxWriter } from '@petstore/messaging';
import { InventoryEntries } from './inventory-entries';
import { Reservation } from './reservation.entity';
import { decideReservation } from './stock-rules';

/**
 * The inventory's side of the order saga, run in the consumer's transaction. Each method
 * locks the pet's entry first, then reads the order's reservation: a redelivered event, or
 * one handled by two replicas at once, finds the first one's decision and changes nothing.
 */
@Injectable()
export class ReservationsService {
  constructor(
    private readonly entries: InventoryEntries,
    private readonly outbox: OutboxWriter,
  ) {}

  /** OrderPlaced: approve (taking the units) or reject with the first reason that applies. */
  async decide(em: EntityManager, { orderId, petId, quantity }: OrderPlacedPayload, meta: EventMeta): Promise<void> {
    let locked = await this.entries.lockWithReservationOf(em, petId, orderId);
    if (!locked) {
      // No entry yet: read your writes creates it from the catalog's answer; a pet unknown there has none.
      const created = await this.entries.lock(em, petId, { requestId: meta.correlationId ?? String(orderId) });
      if (created) locked = await this.entries.lockWithReservationOf(em, petId, orderId);
      else if (await this.find(em, orderId)) return;
    }
    if (locked?.decided) return;

    const entry = locked?.entry;
    const decision = decideReservation(entry, quantity);
    if (decision.kind === 'reserve' && entry) {
      entry.quantity = decision.remaining;
      this.outbox.add(em, StockReserved.create({ orderId, petId, quantity, remaining: decision.remaining }, meta));
      await this.entries.reserve(em, entry, { orderId, quantity }, meta);
      return;
    }
    // decideReservation reserves only from an existing entry.
    const reason = decision.kind === 'reject' ? decision.reason : 'UNKNOWN_PET';
    em.create(Reservation, { orderId, petId, quantity, state: 'rejected', reason });
    this.outbox.add(em, StockReservationRejected.create({ orderId, petId, reason }, meta));
  }

  /**
   * OrderCancelled: an approved order's units go back. A cancellation that finds no
   * decision yet leaves a record of itself, so that the OrderPlaced, should it still come,
   * takes nothing.
   */
  async release(em: EntityManager, { orderId, petId, quantity }: OrderCancelledPayload, meta: EventMeta): Promise<void> {
    const entry = await this.entries.lock(em, petId);
    const reservation = await this.find(em, orderId);
    if (!reservation) {
      em.create(Reservation, { orderId, petId, quantity, state: 'cancelled' });
      return;
    }
    if (reservation.state !== 'reserved') return;
    reservation.state = 'released';
    this.outbox.add(em, StockReleased.create({ orderId, petId, quantity: reservation.quantity }, meta));
    if (!entry) return;
    entry.quantity += reservation.quantity;
    // A deleted pet has no status left to publish.
    if (!entry.deleted) await this.entries.recompute(em, entry, meta);
  }

  /** OrderDelivered: the units stay taken; the order no longer counts as open. */
  async deliver(em: EntityManager, { orderId, petId }: OrderDeliveredPayload, meta: EventMeta): Promise<void> {
    const entry = await this.entries.lock(em, petId);
    const reservation = await this.find(em, orderId);
    if (!reservation || reservation.state !== 'reserved') return;
    reservation.state = 'delivered';
    if (entry && !entry.deleted) await this.entries.recompute(em, entry, meta);
    else await em.flush();
  }

  private find(em: EntityManager, orderId: number): Promise<Reservation | null> {
    return em.findOne(Reservation, orderId, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
  }
}
