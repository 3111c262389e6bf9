import type { PetStatus, RejectionReason } from '@petstore/contracts';

/** What the decision about a reservation reads of the pet's inventory entry. */
export interface EntryState {
  status: PetStatus;
  quantity: number;
  deleted: boolean;
}

export type ReservationDecision = { kind: 'reserve'; remaining: number } | { kind: 'reject'; reason: RejectionReason };

/**
 * API.md §7: approve when the pet is available and has enough free units; otherwise the
 * first reason that applies, in this order.
 */
export function decideReservation(entry: EntryState | undefined, quantity: number): ReservationDecision {
  if (!entry || entry.deleted) return { kind: 'reject', reason: 'UNKNOWN_PET' };
  if (entry.status !== 'available') return { kind: 'reject', reason: 'PET_NOT_AVAILABLE' };
  if (entry.quantity < quantity) return { kind: 'reject', reason: 'INSUFFICIENT_STOCK' };
  return { kind: 'reserve', remaining: entry.quantity - quantity };
}

/**
 * The status after a change of stock or of open orders: free units make the pet available;
 * none, with an approved order still open, pending; none and nothing open, sold.
 */
export function recomputeStatus(quantity: number, hasOpenReservation: boolean): PetStatus {
  if (quantity > 0) return 'available';
  return hasOpenReservation ? 'pending' : 'sold';
}

/** What a PetUpdated from the catalog does to the entry's status. */
export type CatalogStatusAction = 'mirror' | 'ignore' | 'answer';

/**
 * A status set by a client (the event has no cause) is mirrored, unless the pet's stock or
 * open orders changed after the client set it: that change recomputed the status, which then
 * holds, and is published again so that the catalog takes it too ('answer'). The catalog also
 * publishes PetUpdated when it applies a status this service recomputed: that echo is mirrored
 * only when it answers the latest recompute, so an echo of an older one cannot overwrite a
 * newer status. A change earlier in the same batch (`stockChanged`) is newer than either: its
 * recompute gets its event only at flush, and its stock_changed_at then.
 */
export function catalogStatusAction(
  event: { causationId: string | null; occurredAt: string },
  entry: { lastRecomputeEventId: string | null; stockChangedAt: Date | null; stockChanged?: boolean },
): CatalogStatusAction {
  if (event.causationId !== null) {
    return event.causationId === entry.lastRecomputeEventId && !entry.stockChanged ? 'mirror' : 'ignore';
  }
  if (entry.stockChanged) return 'answer';
  if (entry.stockChangedAt && entry.stockChangedAt.getTime() > Date.parse(event.occurredAt)) return 'answer';
  return 'mirror';
}
