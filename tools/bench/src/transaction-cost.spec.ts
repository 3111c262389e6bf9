import { median } from './transaction-cost';

describe('transaction-cost', () => {
  it('reads the median of the rounds, odd or even in number, whatever their order', () => {
    expect(median([9, 1, 5])).toBe(5);
    expect(median([130, 120, 400, 125])).toBe(127.5);
    expect(median([42])).toBe(42);
  });
});
