import { pageCursor, pageLimit, pageOf } from './paging';

describe('paging', () => {
  it('tells from the extra row whether more remain', () => {
    expect(pageOf([1, 2, 3], 2)).toEqual({ items: [1, 2], hasMore: true });
    expect(pageOf([1, 2], 2)).toEqual({ items: [1, 2], hasMore: false });
  });

  it('keeps the limit within 1..100 and defaults a missing or malformed one', () => {
    expect([pageLimit(1), pageLimit(100), pageLimit(1000)]).toEqual([1, 100, 100]);
    expect([pageLimit(undefined), pageLimit(0), pageLimit(2.5)]).toEqual([20, 20, 20]);
  });

  it('starts from the beginning without a usable cursor', () => {
    expect([pageCursor(undefined), pageCursor(-4), pageCursor(Number.NaN), pageCursor(42)]).toEqual([0, 0, 0, 42]);
  });
});
