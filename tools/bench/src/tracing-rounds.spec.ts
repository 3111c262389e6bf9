import type { CapacityResult, TracingRound } from './results';
import { asRounds, runOrder, summarizeRounds } from './tracing-rounds';

const capacity = (decidedPerSecond: number) => ({ decidedPerSecond }) as CapacityResult;
const round = (onToOff: number, sampledOnToOff?: number): TracingRound => ({
  off: capacity(1000),
  on: capacity(onToOff * 1000),
  spansReceived: 6100,
  spansPerOrder: 6.1,
  onToOff,
  ...(sampledOnToOff !== undefined && { sampled: { ratio: 0.1, on: capacity(sampledOnToOff * 1000), spansReceived: 610, spansPerOrder: 0.6, onToOff: sampledOnToOff } }),
});

describe("the tracing section's rounds", () => {
  it('take the means of on / off, every trace and the chart share, each round against its own off', () => {
    const summary = summarizeRounds([round(0.62, 0.81), round(0.7, 0.75)]);
    expect(summary.onToOff).toBe(0.66);
    expect(summary.sampledOnToOff).toBe(0.78);
    expect(summary.rounds).toHaveLength(2);
  });

  it('leave out the chart share when no round measured it', () => {
    expect(summarizeRounds([round(0.7)])).toEqual({ rounds: [round(0.7)], onToOff: 0.7 });
  });

  it('read a run of one round, from before rounds were kept, as a single round', () => {
    const old = round(0.67, 0.79);
    expect(asRounds(old)).toEqual({ rounds: [old], onToOff: 0.67, sampledOnToOff: 0.79 });
    const rounds = summarizeRounds([round(0.6), round(0.8)]);
    expect(asRounds(rounds)).toBe(rounds);
  });

  it('run in the listed order in odd rounds and in reverse in even ones, so that a drift through a pair of rounds weighs on every run alike', () => {
    const runs = ['off', 'every', 'sampled'] as const;
    expect([1, 2, 3, 4].map((n) => runOrder(runs, n))).toEqual([
      ['off', 'every', 'sampled'],
      ['sampled', 'every', 'off'],
      ['off', 'every', 'sampled'],
      ['sampled', 'every', 'off'],
    ]);
    // Each run's mean place over a pair of rounds is the same.
    const meanPlace = (run: (typeof runs)[number]) => (runOrder(runs, 1).indexOf(run) + runOrder(runs, 2).indexOf(run)) / 2;
    expect(runs.map(meanPlace)).toEqual([1, 1, 1]);
    expect(runs).toEqual(['off', 'every', 'sampled']);
  });
});
