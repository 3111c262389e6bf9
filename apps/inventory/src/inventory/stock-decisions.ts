import {
  PetStatusRecomputed,
  StockReleased,
  StockReservationRejected,
  StockReserved,
  type EventEnvelope,
  type EventMeta,
  type OrderPlaced,
  type EnvelopeOf,
  type PetStatus,
} from '@petstore/contracts';
import type { TraceCarrier } from '@petstore/messaging';
import type { Decided, Entry, EntryView, Parked, Reservation, ReservationState } from './stock-state';
import { decideReservation, recomputeStatus } from './stock-rules';

/**
 * The stock rules applied to a loaded batch, in memory and in the order the events came: what
 * happens to entries and reservations, which orders wait for their pet, and which events say
 * so. Knows no database: the store loads what it decides over and writes what changed.
 */
export class StockDecisions {
  private readonly entries = new Map<number, Entry | null>();
  private readonly reservations = new Map<number, Reservation | null>();
  /** Pets that have orders waiting in parked_order (as far as this transaction has looked). */
  private readonly withParkedOrders = new Set<number>();
  private toPark: Parked[] = [];
  private decided: Decided[] = [];
  private parkedSome = false;

  /** Whether orders were parked (the resolver then has work). */
  get parkedAny(): boolean {
    return this.parkedSome;
  }

  /** Pets among these not loaded yet (or loaded without an entry). */
  petsToLoad(petIds: number[]): number[] {
    return [...new Set(petIds)].filter((id) => !this.entries.get(id));
  }

  /** Orders among these not loaded yet. */
  ordersToLoad(orderIds: number[]): number[] {
    return [...new Set(orderIds)].filter((id) => !this.reservations.has(id));
  }

  /** What was read for these pets and orders; those without a row have none. */
  loaded(
    asked: { pets: number[]; orders: number[] },
    found: { entries: Entry[]; reservations: Reservation[]; withParkedOrders: number[] },
  ): void {
    for (const id of asked.pets) this.entries.set(id, null);
    for (const id of asked.orders) this.reservations.set(id, null);
    for (const entry of found.entries) this.entries.set(entry.petId, entry);
    for (const reservation of found.reservations) this.reservations.set(reservation.orderId, reservation);
    for (const petId of found.withParkedOrders) this.withParkedOrders.add(petId);
  }

  /** The pet's entry as this transaction sees it (loaded first). */
  entry(petId: number): EntryView | undefined {
    return this.entries.get(petId) ?? undefined;
  }

  /** Pets among these (loaded first) that have an entry and orders waiting for one. */
  readyToDecideParked(petIds: number[]): number[] {
    return [...new Set(petIds)].filter((id) => this.withParkedOrders.has(id) && this.entries.get(id));
  }

  /** These pets' parked orders were taken out of parked_order, to be decided now. */
  unparked(petIds: number[]): void {
    for (const id of petIds) this.withParkedOrders.delete(id);
  }

  /**
   * OrderPlaced (loaded first): approve, taking the units, or reject with the first reason that
   * applies. An order for a pet without an entry, or behind orders still waiting for one, waits
   * in parked_order until the pet's entry exists, with the trace `traceWhileParked` gives.
   */
  placed(
    event: EnvelopeOf<typeof OrderPlaced>,
    meta: EventMeta,
    trace?: TraceCarrier,
    traceWhileParked: () => TraceCarrier = () => trace ?? {},
  ): void {
    const { orderId, petId, quantity } = event.payload;
    if (this.reservations.get(orderId)) return; // decided before, or cancelled before it came
    const entry = this.entries.get(petId);
    if (!entry || this.withParkedOrders.has(petId)) {
      this.withParkedOrders.add(petId);
      this.parkedSome = true;
      this.toPark.push({ event, trace: traceWhileParked() });
      return;
    }
    const decision = decideReservation(entry, quantity);
    if (decision.kind === 'reserve') {
      entry.quantity = decision.remaining;
      this.changeStock(entry, meta, { reserved: true });
      this.addReservation({ orderId, petId, quantity, state: 'reserved', reason: null });
      this.decide(StockReserved.create({ orderId, petId, quantity, remaining: decision.remaining }, meta), trace);
    } else {
      this.addReservation({ orderId, petId, quantity, state: 'rejected', reason: decision.reason });
      this.decide(StockReservationRejected.create({ orderId, petId, quantity, reason: decision.reason }, meta), trace);
    }
  }

  /**
   * OrderCancelled (loaded first): an approved order's units go back. A cancellation that finds
   * no decision yet leaves a record of itself, so that the OrderPlaced, should it still come,
   * takes nothing.
   */
  cancelled({ orderId, petId, quantity }: { orderId: number; petId: number; quantity: number }, meta: EventMeta): void {
    const reservation = this.reservations.get(orderId);
    if (!reservation) {
      this.addReservation({ orderId, petId, quantity, state: 'cancelled', reason: null });
      return;
    }
    if (reservation.state !== 'reserved') return;
    this.setState(reservation, 'released');
    this.decide(StockReleased.create({ orderId, petId, quantity: reservation.quantity }, meta));
    const entry = this.entries.get(petId);
    if (!entry) return;
    entry.quantity += reservation.quantity;
    this.changeStock(entry, meta);
  }

  /** OrderDelivered (loaded first): the units stay taken; the order no longer counts as open. */
  delivered({ orderId, petId }: { orderId: number; petId: number }, meta: EventMeta): void {
    const reservation = this.reservations.get(orderId);
    if (!reservation || reservation.state !== 'reserved') return;
    this.setState(reservation, 'delivered');
    const entry = this.entries.get(petId);
    if (entry) this.changeStock(entry, meta);
  }

  /** Stock set through the API (loaded first): its recomputed status is published even when unchanged. */
  setQuantity(petId: number, quantity: number, meta: EventMeta): void {
    const entry = this.entries.get(petId);
    if (!entry) throw new Error(`Pet ${petId} has no entry loaded`);
    entry.quantity = quantity;
    this.changeStock(entry, meta);
    entry.publish = true;
  }

  /** A status set by a client through the catalog (loaded first): mirrored, no recompute. */
  mirrorStatus(petId: number, status: PetStatus): void {
    const entry = this.entries.get(petId);
    if (!entry || entry.deleted) return;
    entry.status = status;
    entry.catalogStatus = status;
    entry.changed = true;
  }

  /** The catalog holds a status older than the entry's recomputed one (loaded first): publish it again. */
  publishStatus(petId: number, meta: EventMeta): void {
    const entry = this.entries.get(petId);
    if (!entry || entry.deleted) return;
    entry.recomputeFor ??= meta;
    entry.publish = true;
  }

  /** Whether a recompute must first ask which of these pets still have approved orders open. */
  get asksOpenOrders(): boolean {
    return [...this.entries.values()].some((entry) => entry?.askOpenOrders);
  }

  /** Pets whose status waits for whether approved orders are still open. */
  soldOutPets(): number[] {
    return this.due()
      .filter((entry) => entry.askOpenOrders)
      .map((entry) => entry.petId);
  }

  /**
   * At most one PetStatusRecomputed per pet whose stock or open orders changed, and only when
   * the catalog does not have that status yet (a client's status that crossed a stock change is
   * answered when it arrives, see catalogStatusAction). `withOpenOrders`: the sold-out pets
   * (soldOutPets) that still have approved orders open, once this batch's reservations count.
   */
  recompute(withOpenOrders: ReadonlySet<number>): void {
    for (const entry of this.due()) {
      const cause = entry.recomputeFor as EventMeta;
      if (entry.askOpenOrders) entry.status = recomputeStatus(entry.quantity, withOpenOrders.has(entry.petId));
      entry.askOpenOrders = false;
      entry.recomputeFor = undefined;
      if (entry.status === entry.catalogStatus && !entry.publish) continue;
      entry.publish = false;
      const event = PetStatusRecomputed.create(
        { petId: entry.petId, status: entry.status, quantity: entry.quantity },
        cause,
      );
      entry.lastRecomputeEventId = event.eventId;
      entry.catalogStatus = entry.status;
      entry.changed = true;
      this.decide(event);
    }
  }

  /** The events decided since the last call, in order. */
  takeDecided(): Decided[] {
    const decided = this.decided;
    this.decided = [];
    return decided;
  }

  /** The orders parked since the last call. */
  takeParked(): Parked[] {
    const parked = this.toPark;
    this.toPark = [];
    return parked;
  }

  /** Reservations changed since the last call; from now on they count as written. */
  takeChangedReservations(): Reservation[] {
    return takeChanged(this.reservations, (reservation) => {
      reservation.stored = true;
      reservation.changed = false;
    });
  }

  /** Entries changed since the last call; from now on they count as written. */
  takeChangedEntries(): Entry[] {
    return takeChanged(this.entries, (entry) => {
      entry.changed = false;
      entry.stockChanged = false;
    });
  }

  private due(): Entry[] {
    return [...this.entries.values()].filter((e): e is Entry => !!e?.recomputeFor);
  }

  /**
   * After a change of stock or open orders the status is recomputed at once, so the batch's
   * next order of the pet sees it; it is published once, at flush. Only a pet left without
   * free units by something other than a reservation needs to ask whether orders are still
   * open, and that waits for the flush.
   */
  private changeStock(entry: Entry, meta: EventMeta, { reserved = false } = {}): void {
    entry.changed = true;
    entry.stockChanged = true;
    // A deleted pet has no status left to publish.
    if (entry.deleted) return;
    entry.recomputeFor = meta;
    entry.askOpenOrders = entry.quantity <= 0 && !reserved;
    if (!entry.askOpenOrders) entry.status = recomputeStatus(entry.quantity, reserved);
  }

  private addReservation(fields: Omit<Reservation, 'stored' | 'changed'>): void {
    this.reservations.set(fields.orderId, { ...fields, stored: false, changed: true });
  }

  private setState(reservation: Reservation, state: ReservationState): void {
    reservation.state = state;
    reservation.changed = true;
  }

  private decide(event: EventEnvelope, trace?: TraceCarrier): void {
    this.decided.push({ event, trace });
  }
}

/** Copies of the changed values as they are now (what the store writes); `written` then marks each original as written. */
function takeChanged<T extends { changed: boolean }>(values: Map<number, T | null>, written: (value: T) => void): T[] {
  const changed = [...values.values()].filter((value): value is T => value !== null && value.changed);
  return changed.map((value) => {
    const taken = { ...value };
    written(value);
    return taken;
  });
}
