import { OrderPlaced, type EventMeta } from '@petstore/contracts';
import { StockDecisions } from './stock-decisions';
import type { Entry } from './stock-state';

const meta: EventMeta = { producer: 'inventory', correlationId: 'req-1' };

function entry(fields: Partial<Entry> & { petId: number }): Entry {
  return {
    quantity: 0,
    status: 'available',
    deleted: false,
    lastRecomputeEventId: null,
    stockChangedAt: null,
    catalogStatus: fields.status ?? 'available',
    changed: false,
    ...fields,
  };
}

function loadedWith(entries: Entry[]): StockDecisions {
  const decisions = new StockDecisions();
  decisions.loaded(
    { pets: entries.map((one) => one.petId), orders: [] },
    { entries, reservations: [], withParkedOrders: [] },
  );
  return decisions;
}

const placed = (orderId: number, petId: number, quantity: number) =>
  OrderPlaced.create({ orderId, petId, quantity }, { producer: 'orders', correlationId: 'req-1' });

describe('StockDecisions over a loaded batch', () => {
  it('takes the units of orders in the order they came, and rejects the one the rest cannot cover', () => {
    const decisions = loadedWith([entry({ petId: 1, quantity: 3 })]);
    decisions.placed(placed(10, 1, 2), meta);
    decisions.placed(placed(11, 1, 2), meta);
    decisions.placed(placed(12, 1, 1), meta);
    expect(decisions.takeDecided().map(({ event }) => [event.type, event.payload])).toEqual([
      ['StockReserved', { orderId: 10, petId: 1, quantity: 2, remaining: 1 }],
      ['StockReservationRejected', { orderId: 11, petId: 1, quantity: 2, reason: 'INSUFFICIENT_STOCK' }],
      ['StockReserved', { orderId: 12, petId: 1, quantity: 1, remaining: 0 }],
    ]);
    expect(decisions.entry(1)).toMatchObject({ quantity: 0, status: 'pending' });
  });

  it('publishes one recomputed status per pet, only when the catalog lacks it', () => {
    const decisions = loadedWith([entry({ petId: 1, quantity: 2 }), entry({ petId: 2, quantity: 5 })]);
    decisions.placed(placed(10, 1, 1), meta);
    decisions.placed(placed(11, 1, 1), meta);
    decisions.placed(placed(12, 2, 1), meta);
    decisions.takeDecided();
    decisions.recompute(new Set());
    expect(decisions.takeDecided().map(({ event }) => [event.type, event.payload])).toEqual([
      ['PetStatusRecomputed', { petId: 1, status: 'pending', quantity: 0 }],
    ]);
  });

  it('parks an order for a pet without an entry, with the trace it came in', () => {
    const decisions = loadedWith([]);
    decisions.loaded({ pets: [7], orders: [] }, { entries: [], reservations: [], withParkedOrders: [] });
    decisions.placed(placed(20, 7, 1), meta, undefined, () => ({ traceparent: 'trace-of-20' }));
    expect(decisions.parkedAny).toBe(true);
    expect(decisions.takeDecided()).toEqual([]);
    expect(decisions.takeParked().map(({ event, trace }) => [event.payload.orderId, trace])).toEqual([
      [20, { traceparent: 'trace-of-20' }],
    ]);
  });

  it('a cancellation before its order leaves a record, so the order takes nothing when it comes', () => {
    const decisions = loadedWith([entry({ petId: 1, quantity: 3 })]);
    decisions.loaded({ pets: [], orders: [30] }, { entries: [], reservations: [], withParkedOrders: [] });
    decisions.cancelled({ orderId: 30, petId: 1, quantity: 2 }, meta);
    decisions.placed(placed(30, 1, 2), meta);
    expect(decisions.takeDecided()).toEqual([]);
    expect(decisions.entry(1)).toMatchObject({ quantity: 3 });
    expect(decisions.takeChangedReservations()).toMatchObject([{ orderId: 30, state: 'cancelled', stored: false }]);
  });
});
