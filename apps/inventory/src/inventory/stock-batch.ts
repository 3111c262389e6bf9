import type { EntityManager } from '@mikro-orm/postgresql';
import { context, propagation, ROOT_CONTEXT } from '@opentelemetry/api';
import type { EnvelopeOf, EventEnvelope, EventMeta, OrderPlaced, PetStatus } from '@petstore/contracts';
import { eventTraceCarrier, OutboxWriter, type TraceCarrier } from '@petstore/messaging';
import { StockDecisions } from './stock-decisions';
import type { EntryView } from './stock-state';
import {
  entryWrites,
  loadStock,
  parkedWrites,
  petsWithOpenOrders,
  reservationWrites,
  unpark,
  writeStock,
  type Write,
} from './stock-store';

/**
 * What one transaction does to stock, as a set. The entries and reservations it touches are
 * read and locked in one statement (stock-store), changed in memory event by event in the order
 * the events came (stock-decisions), and written back just before the commit with one
 * statement per kind of change. A pet's status is recomputed once per transaction, however
 * many of its orders the batch decided.
 *
 * Every change of a pet's stock runs with its entry row locked, so concurrent orders never
 * take more units than exist, and a redelivered event, or one handled by two replicas at
 * once, finds the first one's reservation and changes nothing.
 */
export class StockBatch {
  private readonly decisions = new StockDecisions();

  constructor(
    private readonly em: EntityManager,
    private readonly outbox: OutboxWriter,
  ) {}

  /** Whether this transaction parked orders (the resolver then has work). */
  get parkedAny(): boolean {
    return this.decisions.parkedAny;
  }

  /** Locks and reads the entries of `petIds` and the reservations of `orderIds` this batch has not read yet. */
  async load(petIds: number[], orderIds: number[] = []): Promise<void> {
    const pets = this.decisions.petsToLoad(petIds);
    const orders = this.decisions.ordersToLoad(orderIds);
    if (pets.length === 0 && orders.length === 0) return;
    this.decisions.loaded({ pets, orders }, await loadStock(this.em, pets, orders));
  }

  /** The pet's entry as this transaction sees it (loaded first). */
  entry(petId: number): EntryView | undefined {
    return this.decisions.entry(petId);
  }

  /** See StockDecisions.placed; an order that waits keeps the trace of the event it came in. */
  placed(event: EnvelopeOf<typeof OrderPlaced>, meta: EventMeta, trace?: TraceCarrier): void {
    this.decisions.placed(event, meta, trace, () => trace ?? eventTraceCarrier(event.eventId));
    this.publishDecided();
  }

  cancelled(order: { orderId: number; petId: number; quantity: number }, meta: EventMeta): void {
    this.decisions.cancelled(order, meta);
    this.publishDecided();
  }

  delivered(order: { orderId: number; petId: number }, meta: EventMeta): void {
    this.decisions.delivered(order, meta);
    this.publishDecided();
  }

  setQuantity(petId: number, quantity: number, meta: EventMeta): void {
    this.decisions.setQuantity(petId, quantity, meta);
  }

  mirrorStatus(petId: number, status: PetStatus): void {
    this.decisions.mirrorStatus(petId, status);
  }

  publishStatus(petId: number, meta: EventMeta): void {
    this.decisions.publishStatus(petId, meta);
  }

  /**
   * Decides the orders waiting for these pets' entries (loaded first, entries existing), in the
   * order they came, each in the trace it came in.
   */
  async decideParked(petIds: number[], metaOf: (event: EventEnvelope) => EventMeta): Promise<void> {
    const ready = this.decisions.readyToDecideParked(petIds);
    if (ready.length === 0) return;
    const rows = await unpark(this.em, ready);
    await this.load(
      [],
      rows.map((row) => row.event.payload.orderId),
    );
    this.decisions.unparked(ready);
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
    if (this.decisions.asksOpenOrders) {
      await writeStock(this.em, reservationWrites(this.decisions.takeChangedReservations()));
    }
    this.decisions.recompute(await petsWithOpenOrders(this.em, this.decisions.soldOutPets()));
    this.publishDecided();
    await writeStock(this.em, [
      ...parkedWrites(this.decisions.takeParked()),
      ...reservationWrites(this.decisions.takeChangedReservations()),
      ...entryWrites(this.decisions.takeChangedEntries()),
      ...this.outboxWrites(),
    ]);
  }

  /** Into the outbox, in the trace of a parked order when it is one. */
  private publishDecided(): void {
    for (const { event, trace } of this.decisions.takeDecided()) {
      if (!trace) this.outbox.add(this.em, event);
      else context.with(propagation.extract(ROOT_CONTEXT, trace), () => this.outbox.add(this.em, event));
    }
  }

  /** The events published so far in this transaction, written with the rest instead of at commit. */
  private outboxWrites(): Write[] {
    const insert = this.outbox.takeInsert(this.em);
    return insert ? [insert] : [];
  }
}
