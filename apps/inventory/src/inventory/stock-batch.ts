import type { EntityManager } from '@mikro-orm/postgresql';
import { Injectable } from '@nestjs/common';
import { executePrepared } from '@petstore/database';
import { context, propagation, ROOT_CONTEXT } from '@opentelemetry/api';
import {
  PetStatusRecomputed,
  StockReleased,
  StockReservationRejected,
  StockReserved,
  type EventEnvelope,
  type EventMeta,
  type InventoryItem,
  type OrderPlaced,
  type EnvelopeOf,
  type PetStatus,
  type RejectionReason,
} from '@petstore/contracts';
import {
  eventTraceCarrier,
  outboxInsert,
  OutboxWriter,
  TransactionHooks,
  type TraceCarrier,
} from '@petstore/messaging';
import type { ReservationState } from './reservation.entity';
import { decideReservation, recomputeStatus } from './stock-rules';

interface Entry {
  petId: number;
  quantity: number;
  status: PetStatus;
  deleted: boolean;
  lastRecomputeEventId: string | null;
  stockChangedAt: Date | null;
  /** The status the catalog has, as far as this service knows: the last one published or mirrored. */
  catalogStatus: PetStatus;
  /** Quantity, status or the last recompute changed: written at flush. */
  changed: boolean;
  /** Stock or open orders changed now (stock_changed_at is set at flush). */
  stockChanged?: boolean;
  /** The status was recomputed: published at flush, as caused by this event, if the catalog lacks it (or `publish`). */
  recomputeFor?: EventMeta;
  /** Publish the status even when the catalog has it already. */
  publish?: boolean;
  /** No free units and no reservation taken by this batch: whether orders are still open is asked at flush. */
  askOpenOrders?: boolean;
}

interface Reservation {
  orderId: number;
  petId: number;
  quantity: number;
  state: ReservationState;
  reason: RejectionReason | null;
  /** The row exists; otherwise it is inserted at flush. */
  stored: boolean;
  changed: boolean;
}

/** One statement, or one part of a statement that writes several tables. */
interface Write {
  sql: string;
  params: unknown[];
}

/** An OrderPlaced that came before inventory knew its pet, waiting in `parked_order`. */
interface Parked {
  event: EnvelopeOf<typeof OrderPlaced>;
  trace: TraceCarrier;
}

export function toInventoryItem(entry: Pick<Entry, 'petId' | 'quantity' | 'status'>): InventoryItem {
  return { petId: entry.petId, quantity: entry.quantity, status: entry.status };
}

/**
 * What one transaction does to stock, as a set. The entries and reservations it touches are
 * read and locked in one statement (entries in pet id order, so concurrent batches never
 * deadlock), changed in memory event by event in the order the events came, and written back
 * just before the commit with one statement per kind of change. A pet's status is recomputed
 * once per transaction, however many of its orders the batch decided.
 *
 * Every change of a pet's stock runs with its entry row locked, so concurrent orders never
 * take more units than exist, and a redelivered event, or one handled by two replicas at
 * once, finds the first one's reservation and changes nothing.
 */
export class StockBatch {
  private readonly entries = new Map<number, Entry | null>();
  private readonly reservations = new Map<number, Reservation | null>();
  /** Pets that have orders waiting in parked_order (as far as this transaction has looked). */
  private readonly withParkedOrders = new Set<number>();
  private readonly toPark: Parked[] = [];
  private parkedSome = false;

  constructor(
    private readonly em: EntityManager,
    private readonly outbox: OutboxWriter,
  ) {}

  /** Whether this transaction parked orders (the resolver then has work). */
  get parkedAny(): boolean {
    return this.parkedSome;
  }

  /** Locks and reads the entries of `petIds` and the reservations of `orderIds` this batch has not read yet. */
  async load(petIds: number[], orderIds: number[] = []): Promise<void> {
    const pets = [...new Set(petIds)].filter((id) => !this.entries.get(id));
    const orders = [...new Set(orderIds)].filter((id) => !this.reservations.has(id));
    if (pets.length === 0 && orders.length === 0) return;
    const rows = await executePrepared<{ kind: 'entry' | 'reservation' | 'parked'; row: Record<string, unknown> }>(
      this.em,
      `with e as (
         select pet_id, quantity, status, deleted, last_recompute_event_id, stock_changed_at from inventory_entry
          where pet_id = any(?::bigint[]) order by pet_id for update
       ), r as (
         select order_id, pet_id, quantity, state, reason from reservation
          where order_id = any(?::bigint[]) for update
       ), p as (
         select distinct pet_id from parked_order where pet_id = any(?::bigint[])
       )
       select 'entry' as kind, to_jsonb(e) as row from e
       union all select 'reservation', to_jsonb(r) from r
       union all select 'parked', to_jsonb(p) from p`,
      [pets, orders, pets],
    );
    for (const id of pets) this.entries.set(id, null);
    for (const id of orders) this.reservations.set(id, null);
    for (const { kind, row } of rows) {
      if (kind === 'entry') {
        this.entries.set(Number(row.pet_id), {
          petId: Number(row.pet_id),
          quantity: Number(row.quantity),
          status: row.status as PetStatus,
          deleted: row.deleted as boolean,
          lastRecomputeEventId: row.last_recompute_event_id as string | null,
          stockChangedAt: row.stock_changed_at ? new Date(row.stock_changed_at as string) : null,
          catalogStatus: row.status as PetStatus,
          changed: false,
        });
      } else if (kind === 'reservation') {
        this.reservations.set(Number(row.order_id), {
          orderId: Number(row.order_id),
          petId: Number(row.pet_id),
          quantity: Number(row.quantity),
          state: row.state as ReservationState,
          reason: row.reason as RejectionReason | null,
          stored: true,
          changed: false,
        });
      } else {
        this.withParkedOrders.add(Number(row.pet_id));
      }
    }
  }

  /** The pet's entry as this transaction sees it (loaded first). */
  entry(
    petId: number,
  ):
    | Readonly<Pick<Entry, 'petId' | 'quantity' | 'status' | 'deleted' | 'lastRecomputeEventId' | 'stockChangedAt'>>
    | undefined {
    return this.entries.get(petId) ?? undefined;
  }

  /** Pets among these (loaded first) that have an entry and orders waiting for one. */
  readyToDecideParked(petIds: number[]): number[] {
    return [...new Set(petIds)].filter((id) => this.withParkedOrders.has(id) && this.entries.get(id));
  }

  /**
   * OrderPlaced (loaded first): approve, taking the units, or reject with the first reason that
   * applies. An order for a pet without an entry, or behind orders still waiting for one, waits
   * in parked_order until the pet's entry exists.
   */
  placed(event: EnvelopeOf<typeof OrderPlaced>, meta: EventMeta, trace?: TraceCarrier): void {
    const { orderId, petId, quantity } = event.payload;
    if (this.reservations.get(orderId)) return; // decided before, or cancelled before it came
    const entry = this.entries.get(petId);
    if (!entry || this.withParkedOrders.has(petId)) {
      this.withParkedOrders.add(petId);
      this.parkedSome = true;
      this.toPark.push({ event, trace: trace ?? eventTraceCarrier(event.eventId) });
      return;
    }
    const decision = decideReservation(entry, quantity);
    if (decision.kind === 'reserve') {
      entry.quantity = decision.remaining;
      this.changeStock(entry, meta, { reserved: true });
      this.addReservation({ orderId, petId, quantity, state: 'reserved', reason: null });
      this.publish(StockReserved.create({ orderId, petId, quantity, remaining: decision.remaining }, meta), trace);
    } else {
      this.addReservation({ orderId, petId, quantity, state: 'rejected', reason: decision.reason });
      this.publish(StockReservationRejected.create({ orderId, petId, reason: decision.reason }, meta), trace);
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
    this.publish(StockReleased.create({ orderId, petId, quantity: reservation.quantity }, meta));
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

  /**
   * Decides the orders waiting for these pets' entries (loaded first, entries existing), in the
   * order they came, each in the trace it came in.
   */
  async decideParked(petIds: number[], metaOf: (event: EventEnvelope) => EventMeta): Promise<void> {
    const ready = this.readyToDecideParked(petIds);
    if (ready.length === 0) return;
    const rows = await executePrepared<{
      seq: string;
      event: EnvelopeOf<typeof OrderPlaced>;
      traceparent: string | null;
      tracestate: string | null;
    }>(this.em, 'delete from parked_order where pet_id = any(?::bigint[]) returning seq, event, traceparent, tracestate', [
      ready,
    ]);
    rows.sort((a, b) => Number(a.seq) - Number(b.seq));
    await this.load(
      [],
      rows.map((row) => row.event.payload.orderId),
    );
    for (const id of ready) this.withParkedOrders.delete(id);
    for (const { event, traceparent, tracestate } of rows) {
      this.placed(event, metaOf(event), { traceparent: traceparent ?? undefined, tracestate: tracestate ?? undefined });
    }
  }

  /**
   * Writes what changed — parked orders, reservations, entries and the events — in one
   * statement; recomputed statuses that must ask whether orders are still open first write the
   * reservations, so that the answer includes them. Runs before the commit; calling it earlier
   * (to answer with the recomputed status) is fine, the commit then writes only what changed since.
   */
  async flush(): Promise<void> {
    const asking = [...this.entries.values()].some((entry) => entry?.askOpenOrders);
    if (asking) await this.write([this.reservationWrites()].flat());
    await this.recompute();
    await this.write([this.parkedWrites(), this.reservationWrites(), this.entryWrites(), this.outboxWrites()].flat());
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

  /** Into the outbox, in the trace of a parked order when it is one. */
  private publish(event: EventEnvelope, trace?: TraceCarrier): void {
    if (!trace) {
      this.outbox.add(this.em, event);
      return;
    }
    context.with(propagation.extract(ROOT_CONTEXT, trace), () => this.outbox.add(this.em, event));
  }

  /** Statements as parts of one: `with w1 as (...), w2 as (...) select 1`. */
  private async write(parts: Write[]): Promise<void> {
    if (parts.length === 0) return;
    if (parts.length === 1) {
      await executePrepared(this.em, parts[0].sql, parts[0].params);
      return;
    }
    await executePrepared(
      this.em,
      `with ${parts.map((part, index) => `w${index} as (${part.sql})`).join(', ')} select 1`,
      parts.flatMap((part) => part.params),
    );
  }

  private parkedWrites(): Write[] {
    const parked = this.toPark.splice(0);
    if (parked.length === 0) return [];
    return [
      {
        sql: `insert into parked_order (order_id, pet_id, event, traceparent, tracestate)
              select * from unnest(?::bigint[], ?::bigint[], ?::jsonb[], ?::text[], ?::text[])
              on conflict (order_id) do nothing`,
        params: [
          parked.map(({ event }) => event.payload.orderId),
          parked.map(({ event }) => event.payload.petId),
          parked.map(({ event }) => JSON.stringify(event)),
          parked.map(({ trace }) => trace.traceparent ?? null),
          parked.map(({ trace }) => trace.tracestate ?? null),
        ],
      },
    ];
  }

  private reservationWrites(): Write[] {
    const changed = [...this.reservations.values()].filter((r): r is Reservation => r !== null && r.changed);
    const inserted = changed.filter((r) => !r.stored);
    const updated = changed.filter((r) => r.stored);
    for (const reservation of changed) {
      reservation.stored = true;
      reservation.changed = false;
    }
    const writes: Write[] = [];
    if (inserted.length > 0) {
      writes.push({
        sql: `insert into reservation (order_id, pet_id, quantity, state, reason)
              select * from unnest(?::bigint[], ?::bigint[], ?::integer[], ?::text[], ?::text[])`,
        params: [
          inserted.map((r) => r.orderId),
          inserted.map((r) => r.petId),
          inserted.map((r) => r.quantity),
          inserted.map((r) => r.state),
          inserted.map((r) => r.reason),
        ],
      });
    }
    if (updated.length > 0) {
      writes.push({
        sql: `update reservation r set state = u.state, updated_at = now()
                from unnest(?::bigint[], ?::text[]) as u(order_id, state)
               where r.order_id = u.order_id`,
        params: [updated.map((r) => r.orderId), updated.map((r) => r.state)],
      });
    }
    return writes;
  }

  private entryWrites(): Write[] {
    const changed = [...this.entries.values()].filter((e): e is Entry => e !== null && e.changed);
    if (changed.length === 0) return [];
    const write = {
      sql: `update inventory_entry e
               set quantity = u.quantity, status = u.status, last_recompute_event_id = u.last_recompute_event_id,
                   stock_changed_at = case when u.stock_changed then now() else e.stock_changed_at end, updated_at = now()
              from unnest(?::bigint[], ?::integer[], ?::text[], ?::uuid[], ?::boolean[])
                   as u(pet_id, quantity, status, last_recompute_event_id, stock_changed)
             where e.pet_id = u.pet_id`,
      params: [
        changed.map((e) => e.petId),
        changed.map((e) => e.quantity),
        changed.map((e) => e.status),
        changed.map((e) => e.lastRecomputeEventId),
        changed.map((e) => e.stockChanged === true),
      ],
    };
    for (const entry of changed) {
      entry.changed = false;
      entry.stockChanged = false;
    }
    return [write];
  }

  /** The events published so far in this transaction, written with the rest instead of at commit. */
  private outboxWrites(): Write[] {
    const rows = this.outbox.take(this.em);
    return rows.length === 0 ? [] : [outboxInsert(rows)];
  }

  /**
   * At most one PetStatusRecomputed per pet whose stock or open orders changed, and only when
   * the catalog does not have that status yet (a client's status that crossed a stock change is
   * answered when it arrives, see catalogStatusAction). Whether approved orders are still open
   * is asked after this batch's reservations are written, so the answer includes them.
   */
  private async recompute(): Promise<void> {
    const due = [...this.entries.values()].filter((e): e is Entry => !!e?.recomputeFor);
    if (due.length === 0) return;
    const soldOut = due.filter((entry) => entry.askOpenOrders).map((entry) => entry.petId);
    const withOpenOrders = new Set<number>();
    if (soldOut.length > 0) {
      const rows = await executePrepared<{ pet_id: string }>(
        this.em,
        `select distinct pet_id from reservation where pet_id = any(?::bigint[]) and state = 'reserved'`,
        [soldOut],
      );
      for (const row of rows) withOpenOrders.add(Number(row.pet_id));
    }
    for (const entry of due) {
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
      this.publish(event);
    }
  }
}

/** The stock batch of each transaction: created on first use, written just before it commits. */
@Injectable()
export class StockBatches {
  private readonly batches = new WeakMap<object, StockBatch>();
  /** Told after a commit that parked orders (the resolver's cue). */
  onParked?: () => void;

  constructor(
    private readonly outbox: OutboxWriter,
    private readonly hooks: TransactionHooks,
  ) {}

  of(em: EntityManager): StockBatch {
    const transaction = em.getTransactionContext<object>();
    if (!transaction) throw new Error('A stock batch needs the EntityManager of an em.transactional(...) callback');
    let batch = this.batches.get(transaction);
    if (!batch) {
      const created = (batch = new StockBatch(em, this.outbox));
      this.batches.set(transaction, created);
      this.hooks.before(em, () => created.flush());
      this.hooks.after(em, () => {
        if (created.parkedAny) this.onParked?.();
      });
    }
    return batch;
  }
}
