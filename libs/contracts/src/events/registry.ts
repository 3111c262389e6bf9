import type { AnyEventDefinition } from './define-event';
import { OrderCancelled } from './order-cancelled/order-cancelled.event';
import { OrderDelivered } from './order-delivered/order-delivered.event';
import { OrderPlaced } from './order-placed/order-placed.event';
import { PetCreated } from './pet-created/pet-created.event';
import { PetDeleted } from './pet-deleted/pet-deleted.event';
import { PetStatusRecomputed } from './pet-status-recomputed/pet-status-recomputed.event';
import { PetUpdated } from './pet-updated/pet-updated.event';
import { StockReleased } from './stock-released/stock-released.event';
import { StockReservationRejected } from './stock-reservation-rejected/stock-reservation-rejected.event';
import { StockReserved } from './stock-reserved/stock-reserved.event';

/** Every event of the contract. */
export const EVENT_DEFINITIONS: readonly AnyEventDefinition[] = Object.freeze([
  PetCreated,
  PetUpdated,
  PetDeleted,
  OrderPlaced,
  OrderCancelled,
  OrderDelivered,
  StockReserved,
  StockReservationRejected,
  StockReleased,
  PetStatusRecomputed,
]);

const byType = new Map(EVENT_DEFINITIONS.map((definition) => [definition.type, definition]));

export function findEventDefinition(type: string): AnyEventDefinition | undefined {
  return byType.get(type);
}
