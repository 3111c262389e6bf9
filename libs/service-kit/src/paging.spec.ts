import { pageCursor, pageLimit, pageOf } from './paging';

describe('pageOf', () => {
  it('has more when the query returned the extra row', () => {
    expect(pageOf([1, 2, 3], 2)).toEqual({ items: [1, 2], hasMore: true });
  });

  it('has no more when the rows fit the page', () => {
    expect(pageOf([1, 2], 2)).toEqual({ items: [1, 2], hasMore: false });
    expect(pageOf([], 2)).toEqual({ items: [], hasMore: false });
  });
});

describe('pageLimit', () => {
  it('keeps a limit within 1..100', () => {
    expect(pageLimit(1)).toBe(1);
    expect(pageLimit(100)).toBe(100);
  });

  it('caps a larger limit and defaults a missing or malformed one', () => {
    expect(pageLimit(1000)).toBe(100);
    expect(pageLimit(undefined)).toBe(20);
    expect(pageLimit(0)).toBe(20);
    expect(pageLimit(2.5)).toBe(20);
  });
});

describe('pageCursor', () => {
  it('starts from the beginning without a usable cursor', () => {
    expect(pageCursor(undefined)).toBe(0);
    expect(pageCursor(0)).toBe(0);
    expect(pageCursor(-4)).toBe(0);
    expect(pageCursor(Number.NaN)).toBe(0);
  });

  it('passes a positive id through', () => {
    expect(pageCursor(42)).toBe(42);
  });
});
