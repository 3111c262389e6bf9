import { boundsRule, ORDER_QUANTITY, STOCK_QUANTITY, withinBounds } from './bounds';

describe('bounds', () => {
  it('admits whole numbers within the bounds, both ends included, and nothing else', () => {
    expect([0, 1, 1000, 1001, 1.5, '5', null].map((value) => withinBounds(value, ORDER_QUANTITY))).toEqual([
      false,
      true,
      true,
      false,
      false,
      false,
      false,
    ]);
    expect(withinBounds(0, STOCK_QUANTITY)).toBe(true);
    expect(withinBounds(1_000_001, STOCK_QUANTITY)).toBe(false);
  });

  it('says the rule with its ends', () => {
    expect(boundsRule(ORDER_QUANTITY)).toBe('must be an integer from 1 to 1000');
  });
});
