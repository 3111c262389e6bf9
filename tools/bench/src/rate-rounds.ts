// The fixed rates in rounds at the targets' rates: each round's stack and floor runs, and the
// means the targets read, pure.
import { cpuTotal } from './cpu-accounting';
import { meanOf, meanRatio, ratio } from './figures';
import type { RateResult } from './results';

export interface RateRound {
  floor: RateResult;
  stack: RateResult;
}

/** A round after the first: `round` counts from 2 (see stackRanFirst). */
export interface LaterRateRound extends RateRound {
  round: number;
}

/** Each later round runs the pair in the other order than the one before: round 2 the stack first, round 3 the floor first. */
export function stackRanFirst(round: number): boolean {
  return round % 2 === 0;
}

/** Where a run keeps its fixed-rate figures: the first round in `rates` and `floorRates`, as runs before rounds kept their one. */
export interface RateRuns {
  rates?: RateResult[];
  floorRates?: RateResult[];
  /** Rounds after the first (BENCH_RATE_ROUNDS), at the targets' rates only. */
  laterRateRounds?: LaterRateRound[];
}

export interface RateRatios {
  rate: number;
  rounds: RateRound[];
  /** Stack / floor placed→decided p99 of each round, in the order the rounds ran. */
  each: (number | null)[];
  mean: number | null;
}

const findAtRate = (list: readonly RateResult[] | undefined, rate: number) => list?.find((r) => r.offeredRate === rate);

/** Every round at `rate` with both runs, the first round first; none when either pipeline was not measured there. */
export function rateRounds({ rates, floorRates, laterRateRounds = [] }: RateRuns, rate: number): RateRound[] {
  const [stack, floor] = [findAtRate(rates, rate), findAtRate(floorRates, rate)];
  const first = stack && floor ? [{ floor, stack }] : [];
  return [...first, ...laterRateRounds.filter((r) => r.stack.offeredRate === rate)];
}

/** The stack's placed→decided p99 over the floor's at `rate`, each round and their mean. */
export function p99Ratios(runs: RateRuns, rate: number): RateRatios {
  const rounds = rateRounds(runs, rate);
  const each = rounds.map(({ stack, floor }) => (stack.decisionP99 && floor.decisionP99 ? ratio(stack.decisionP99, floor.decisionP99) : null));
  return { rate, rounds, each, mean: meanRatio(each) };
}

/** Every run of one pipeline at `rate`, the first round's included (a run without rounds has only that one). */
export function runsAt({ rates, floorRates, laterRateRounds = [] }: RateRuns, rate: number, pipeline: 'stack' | 'floor'): RateResult[] {
  const first = findAtRate(pipeline === 'stack' ? rates : floorRates, rate);
  return [...(first ? [first] : []), ...laterRateRounds.filter((r) => r[pipeline].offeredRate === rate).map((r) => r[pipeline])];
}

/** The mean CPU per decided order over `runs` (ms, every process of the machine), to two decimals; null when none has the figure. */
export function meanCpuPerOrder(runs: readonly ({ cpuMsPerOrder?: Record<string, number> } | undefined)[]): number | null {
  return meanOf(
    runs.flatMap((run) => (run?.cpuMsPerOrder ? [cpuTotal(run)] : [])),
    2,
  );
}
