import { lullSummary, meanFirstToSteady } from './lull-summary';
import type { LullRun, LullSecond } from './results';

const second = (n: number, p50: number, p99: number, decided = 250): LullSecond => ({ second: n, decided, p50, p99 });

const run = (pipeline: LullRun['pipeline'], seconds: LullSecond[], round = 1): LullRun => ({ round, pipeline, failed: 0, undecided: 0, seconds });

describe("the lull section's summary", () => {
  const woke = run('stack', [
    second(1, 120, 300),
    second(2, 80, 200),
    second(3, 60, 150),
    second(4, 55, 120),
    second(5, 40, 90),
    second(6, 44, 100),
    second(7, 60, 140),
    second(8, 41, 95),
    second(9, 42, 99),
    second(10, 43, 97),
    second(11, 300, 300, 3),
  ]);

  it('sets the first second against the median of the steady ones, from the fifth', () => {
    const summary = lullSummary(woke);
    expect(summary.steadyP50).toBe(42.5);
    expect(summary.steadyP99).toBe(98);
    expect(summary.firstToSteady).toBe(2.82);
    expect(summary.firstSeconds.map((s) => s?.p50)).toEqual([120, 80, 60]);
  });

  it('leaves out a last second the load cut short', () => {
    const withoutTail = lullSummary({ ...woke, seconds: woke.seconds.slice(0, -1) });
    expect(lullSummary(woke).steadyP50).toBe(withoutTail.steadyP50);
  });

  it('has no ratio when a run has no steady seconds', () => {
    const summary = lullSummary(run('floor', [second(1, 20, 40), second(2, 10, 30)]));
    expect(summary.steadyP50).toBeNull();
    expect(summary.firstToSteady).toBeNull();
    expect(summary.firstSeconds[2]).toBeUndefined();
  });

  it("means each pipeline's ratios over its rounds", () => {
    const steady = [5, 6, 7, 8].map((n) => second(n, 20, 40));
    const floor1 = lullSummary(run('floor', [second(1, 30, 60), ...steady], 1));
    const floor2 = lullSummary(run('floor', [second(1, 20, 60), ...steady], 2));
    const stack = lullSummary(woke);
    expect(meanFirstToSteady([floor1, stack, floor2], 'floor')).toBe(1.25);
    expect(meanFirstToSteady([floor1, stack, floor2], 'stack')).toBe(2.82);
  });
});
