import { echoCost } from './round-trip-cost';

describe('echoCost', () => {
  it('returns once every paced message has come back, with the CPU both processes spent', async () => {
    const us = await echoCost(200, 0.25);
    expect(Number.isInteger(us)).toBe(true);
    expect(us).toBeGreaterThanOrEqual(0);
  });
});
