import { dueAfterMs, requestCount, waitBefore } from './paced-schedule';

describe('paced schedule', () => {
  it('sends rate × seconds requests', () => {
    expect(requestCount(250, 20)).toBe(5000);
    expect(requestCount(100, 0.5)).toBe(50);
    expect(requestCount(3, 0.5)).toBe(2);
  });

  it('makes request i due i/rate seconds after the start, evenly spaced', () => {
    expect(dueAfterMs(0, 100)).toBe(0);
    expect(dueAfterMs(1, 100)).toBe(10);
    expect(dueAfterMs(250, 250)).toBe(1000);
    expect(dueAfterMs(3, 4)).toBe(750);
    const gaps = Array.from({ length: 9 }, (_, i) => dueAfterMs(i + 1, 1000) - dueAfterMs(i, 1000));
    expect(new Set(gaps)).toEqual(new Set([1]));
  });

  it('waits until a request is due, and not at all when it is due within a millisecond or late', () => {
    expect(waitBefore(1010, 1000)).toBe(10);
    expect(waitBefore(1001, 1000)).toBe(1);
    expect(waitBefore(1000.5, 1000)).toBe(0);
    expect(waitBefore(990, 1000)).toBe(0);
  });
});
