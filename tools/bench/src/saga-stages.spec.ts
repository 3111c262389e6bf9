import type { Layout } from './bench-kafka';
import { sentKind, stackStageSources, stageGaps, STAGES } from './saga-stages';

describe('saga stages', () => {
  it('measures each stage per order, over the orders whose every moment was seen', () => {
    const stages = stageGaps([
      { placed: 0, orderPlacedSent: 10, reserved: 15, stockSent: 40, decided: 45 },
      { placed: 100, orderPlacedSent: 120, reserved: 130, stockSent: 150, decided: 151 },
      { placed: 200, orderPlacedSent: 230, reserved: undefined, stockSent: 260, decided: 270 },
    ]);
    expect(Object.keys(stages)).toEqual([...STAGES]);
    expect(stages['placed → OrderPlaced sent']).toEqual({ p50: 20, p90: 20 });
    expect(stages['→ reservation']).toEqual({ p50: 10, p90: 10 });
    expect(stages['→ stock event sent']).toEqual({ p50: 25, p90: 25 });
    expect(stages['→ decided']).toEqual({ p50: 5, p90: 5 });
  });

  it('tells an order event from a stock answer', () => {
    expect(sentKind('OrderPlaced')).toBe('OrderPlaced');
    expect(sentKind('StockReserved')).toBe('stock');
    expect(sentKind('StockReservationRejected')).toBe('stock');
    expect(sentKind('StockAdjusted')).toBeNull();
  });

  it("reads the stack's moments from its databases and the envelopes on its namespaced topics", () => {
    const layout = { envs: { orders: { DATABASE_URL: 'postgres://orders' }, inventory: { DATABASE_URL: 'postgres://inventory' } } } as unknown as Layout;
    const sources = stackStageSources(layout, 'bench-1.');
    expect(sources.orders).toEqual({ url: 'postgres://orders', table: 'store_order' });
    expect(sources.reservations).toEqual({ url: 'postgres://inventory', table: 'reservation' });
    expect(sources.topics).toEqual({ orderPlaced: 'bench-1.orders.order.v1', stock: 'bench-1.inventory.stock.v1' });
    expect(sources.orderIdOf('OrderPlaced', { type: 'OrderPlaced', payload: { orderId: 7 } })).toBe(7);
    expect(sources.orderIdOf('stock', { type: 'StockReservationRejected', payload: { orderId: 8 } })).toBe(8);
    expect(sources.orderIdOf('OrderPlaced', { type: 'OrderCancelled', payload: { orderId: 9 } })).toBeUndefined();
    expect(sources.orderIdOf('stock', { type: 'StockAdjusted', payload: {} })).toBeUndefined();
  });
});
