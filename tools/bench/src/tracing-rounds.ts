// The tracing section's rounds and the means of their on / off, pure.
import { meanRatio } from './figures';
import type { TracingRound, TracingRounds } from './results';

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
