import { backoffDelay } from '.';

describe('backoffDelay', () => {
  it('doubles the delay from the initial one up to the cap', () => {
    const backoff = { initialMs: 50, maxMs: 1000 };
    expect([1, 2, 3, 4, 5, 6, 7].map((attempt) => backoffDelay(attempt, backoff))).toEqual([
      50, 100, 200, 400, 800, 1000, 1000,
    ]);
  });
});
