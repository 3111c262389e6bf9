import type { EntityManager } from '@mikro-orm/postgresql';
import type { EnvelopeOf, OrderPlaced, PetStatus, RejectionReason } from '@petstore/contracts';
import { executePrepared } from '@petstore/database';
import type { Entry, Parked, Reservation, ReservationState } from './stock-state';

/** One statement, or one part of a statement that writes several tables. */
export interface Write {
  sql: string;
  params: unknown[];
}

/** A parked order taken out of parked_order to be decided, with the trace it came in. */
export interface Unparked {
  event: EnvelopeOf<typeof OrderPlaced>;
  traceparent: string | null;
  tracestate: string | null;
}

/**
 * Reads and locks the entries of `pets` (in pet id order, so concurrent batches never
 * deadlock) and the reservations of `orders`, and which of the pets have orders parked: one
 * statement.
 */
export async function loadStock(
  em: EntityManager,
  pets: number[],
  orders: number[],
): Promise<{ entries: Entry[]; reservations: Reservation[]; withParkedOrders: number[] }> {
  const rows = await executePrepared<{ kind: 'entry' | 'reservation' | 'parked'; row: Record<string, unknown> }>(
    em,
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
    // reservation grows with every order, and a plan cached while it was small scans all of it
    // for the batch's orders (seen: 0.65 s per call after 177,000 orders, with autovacuum off).
    { plan: 'each call' },
  );
  const found = { entries: [] as Entry[], reservations: [] as Reservation[], withParkedOrders: [] as number[] };
  for (const { kind, row } of rows) {
    if (kind === 'entry') {
      found.entries.push({
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
      found.reservations.push({
        orderId: Number(row.order_id),
        petId: Number(row.pet_id),
        quantity: Number(row.quantity),
        state: row.state as ReservationState,
        reason: row.reason as RejectionReason | null,
        stored: true,
        changed: false,
      });
    } else {
      found.withParkedOrders.push(Number(row.pet_id));
    }
  }
  return found;
}

/** Takes these pets' orders out of parked_order, in the order they came. */
export async function unpark(em: EntityManager, petIds: number[]): Promise<Unparked[]> {
  const rows = await executePrepared<Unparked & { seq: string }>(
    em,
    'delete from parked_order where pet_id = any(?::bigint[]) returning seq, event, traceparent, tracestate',
    [petIds],
  );
  return rows.sort((a, b) => Number(a.seq) - Number(b.seq));
}

/** Which of these pets have approved orders still open. */
export async function petsWithOpenOrders(em: EntityManager, petIds: number[]): Promise<Set<number>> {
  if (petIds.length === 0) return new Set();
  const rows = await executePrepared<{ pet_id: string }>(
    em,
    `select distinct pet_id from reservation where pet_id = any(?::bigint[]) and state = 'reserved'`,
    [petIds],
  );
  return new Set(rows.map((row) => Number(row.pet_id)));
}

/** Statements as parts of one: `with w1 as (...), w2 as (...) select 1`. */
export async function writeStock(em: EntityManager, parts: Write[]): Promise<void> {
  if (parts.length === 0) return;
  if (parts.length === 1) {
    await executePrepared(em, parts[0].sql, parts[0].params);
    return;
  }
  await executePrepared(
    em,
    `with ${parts.map((part, index) => `w${index} as (${part.sql})`).join(', ')} select 1`,
    parts.flatMap((part) => part.params),
  );
}

export function parkedWrites(parked: Parked[]): Write[] {
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

export function reservationWrites(changed: Reservation[]): Write[] {
  const inserted = changed.filter((r) => !r.stored);
  const updated = changed.filter((r) => r.stored);
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

export function entryWrites(changed: Entry[]): Write[] {
  if (changed.length === 0) return [];
  return [
    {
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
    },
  ];
}
