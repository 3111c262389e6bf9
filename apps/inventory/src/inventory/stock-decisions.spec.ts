import { OrderPlaced, type EventMeta } from '@petstore/contracts';
import { StockDecisions } from './stock-decisions';
import { catalogStatusAction } from './stock-rules';
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

  it("keeps a release's status when the catalog's answer to the status before it comes later in the batch", () => {
    // Order 40 took the last 5 units (recompute r1: pending); its cancellation and the catalog's
    // answer to r1 arrive in one fetch, the cancellation first.
    const decisions = loadedWith([entry({ petId: 1, quantity: 0, status: 'pending', lastRecomputeEventId: 'r1' })]);
    decisions.loaded(
      { pets: [], orders: [40] },
      {
        entries: [],
        reservations: [{ orderId: 40, petId: 1, quantity: 5, state: 'reserved', reason: null, stored: true, changed: false }],
        withParkedOrders: [],
      },
    );
    decisions.cancelled({ orderId: 40, petId: 1, quantity: 5 }, meta);
    const answerToR1 = { causationId: 'r1', occurredAt: '2026-12-02T09:00:00.000Z' };
    expect(catalogStatusAction(answerToR1, decisions.entry(1) as Entry)).toBe('ignore');
    decisions.recompute(new Set());
    expect(decisions.entry(1)).toMatchObject({ quantity: 5, status: 'available' });
    expect(decisions.takeDecided().map(({ event }) => [event.type, event.payload])).toEqual([
      ['StockReleased', { orderId: 40, petId: 1, quantity: 5 }],
      ['PetStatusRecomputed', { petId: 1, status: 'available', quantity: 5 }],
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
