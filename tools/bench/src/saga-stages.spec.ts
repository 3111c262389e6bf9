import { sentKind, stageGaps, STAGES } from './saga-stages';

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
});
