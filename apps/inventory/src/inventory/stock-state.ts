import type {
  EnvelopeOf,
  EventEnvelope,
  EventMeta,
  InventoryItem,
  OrderPlaced,
  PetStatus,
  RejectionReason,
} from '@petstore/contracts';
import type { TraceCarrier } from '@petstore/messaging';

/**
 * Where an order's reservation stands (the `reservation` table's CHECK lists the same):
 * - reserved: the order was approved and holds `quantity` units;
 * - rejected: the order was refused (`reason`);
 * - released: the units went back to the stock when the approved order was cancelled;
 * - delivered: the order was fulfilled, its units are gone for good;
 * - cancelled: the cancellation arrived before any decision, so nothing will be reserved.
 */
export type ReservationState = 'reserved' | 'rejected' | 'released' | 'delivered' | 'cancelled';

/** A pet's inventory entry as loaded, with what this transaction changed of it. */
export interface Entry {
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

/** What a handler may read of an entry while its batch runs; only the batch changes it. */
export type EntryView = Readonly<
  Pick<Entry, 'petId' | 'quantity' | 'status' | 'deleted' | 'lastRecomputeEventId' | 'stockChangedAt' | 'stockChanged'>
>;

/** An order's reservation as loaded or decided. */
export interface Reservation {
  orderId: number;
  petId: number;
  quantity: number;
  state: ReservationState;
  reason: RejectionReason | null;
  /** The row exists; otherwise it is inserted at flush. */
  stored: boolean;
  changed: boolean;
}

/** An OrderPlaced that came before inventory knew its pet, to wait in `parked_order`. */
export interface Parked {
  event: EnvelopeOf<typeof OrderPlaced>;
  /** The trace it came in, in which it is decided once it leaves parked_order. */
  trace: TraceCarrier;
}

/** An event decided, to be published in the trace it belongs to (a parked order's), if any. */
export interface Decided {
  event: EventEnvelope;
  trace?: TraceCarrier;
}

export function toInventoryItem(entry: Pick<Entry, 'petId' | 'quantity' | 'status'>): InventoryItem {
  return { petId: entry.petId, quantity: entry.quantity, status: entry.status };
}
