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
import { CONSUMING_SERVICES } from './topics';

export type EventService = (typeof CONSUMING_SERVICES)[number];

export interface EventParticipation {
  /** Written to its outbox, in the transaction of the change the event reports. */
  readonly publishes: readonly AnyEventDefinition[];
  /** Handled by its consumer group (named after the service), idempotently. */
  readonly consumes: readonly AnyEventDefinition[];
}

/**
 * Who publishes and who consumes each event. Each service's tests check `consumes` against the
 * handlers it registers, so this stays what the services do.
 */
export const EVENT_SERVICES: Readonly<Record<EventService, EventParticipation>> = Object.freeze({
  catalog: {
    publishes: [PetCreated, PetUpdated, PetDeleted],
    consumes: [PetStatusRecomputed],
  },
  orders: {
    publishes: [OrderPlaced, OrderCancelled, OrderDelivered],
    consumes: [PetCreated, PetUpdated, PetDeleted, StockReserved, StockReservationRejected],
  },
  inventory: {
    publishes: [StockReserved, StockReservationRejected, StockReleased, PetStatusRecomputed],
    consumes: [PetCreated, PetUpdated, PetDeleted, OrderPlaced, OrderCancelled, OrderDelivered],
  },
});

/**
 * The order's decision: inventory answers every OrderPlaced with one of these two events, on
 * `inventory.stock.v1`, keyed by the pet id. A consumer of decisions handles both:
 * `@EventHandler(...OrderDecided)`.
 */
export const OrderDecided = [StockReserved, StockReservationRejected] as const;
export type OrderDecidedDefinition = (typeof OrderDecided)[number];

/**
 * The one service that publishes on each topic. A consumer refuses an event whose envelope names
 * another producer (Kafka's ACLs keep other services off the topic; this catches a tool or a
 * credential that may write there by mistake). Throws at load if two services publish on one topic.
 */
export const TOPIC_OWNERS: ReadonlyMap<string, EventService> = (() => {
  const owners = new Map<string, EventService>();
  for (const [service, { publishes }] of Object.entries(EVENT_SERVICES) as [EventService, EventParticipation][]) {
    for (const { topic } of publishes) {
      const owner = owners.get(topic);
      if (owner && owner !== service) throw new Error(`${topic} is published by both ${owner} and ${service}`);
      owners.set(topic, service);
    }
  }
  return owners;
})();
