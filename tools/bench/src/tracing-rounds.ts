// The tracing section's rounds and the means of their on / off, pure.
import { meanRatio } from './figures';
import type { TracingRound, TracingRounds, TracingRun } from './results';

/**
 * The runs of round `n` (from 1) in the order they run: odd rounds as listed, even ones reversed.
 * A host that speeds up or slows down through a pair of rounds then weighs on every kind of run
 * alike, where a fixed order let it favour whichever kind ran first or last.
 */
export function runOrder(runs: readonly TracingRun[], n: number): TracingRun[] {
  return n % 2 === 1 ? [...runs] : [...runs].reverse();
}

/** The rounds with the means of their on / off: every trace, and the chart's share when it was measured. */
export function summarizeRounds(rounds: TracingRound[]): TracingRounds {
  const sampled = rounds.flatMap((round) => (round.sampled ? [round.sampled.onToOff] : []));
  return {
    rounds,
    onToOff: meanRatio(rounds.map((round) => round.onToOff)),
    ...(sampled.length > 0 && { sampledOnToOff: meanRatio(sampled) }),
  };
}

/** A run's tracing figures as rounds: runs before 2026-11-30 measured one round, without the key. */
export function asRounds(tracing: TracingRound | TracingRounds): TracingRounds {
  return 'rounds' in tracing ? tracing : summarizeRounds([tracing]);
}
