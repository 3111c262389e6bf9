// The lean saga's targets, each beside what one run measured and whether it was met, so that a
// full run reports every target at once from its own figures (floors of the same run).
import { capacityRatios } from './capacity-rounds';
import { meanOf, ratio, round } from './figures';
import { type HostSpread, hostSpread } from './host-speed';
import { meanCpuPerOrder, p99Ratios, runsAt } from './rate-rounds';
import type { BenchResults, CapacityResult, RateResult } from './results';
import { readRatios, type ReadRatios } from './read-rounds';
import { floorShape } from './render-cluster';
import { asRounds } from './tracing-rounds';

export interface TargetVerdict {
  target: string;
  figure: string;
  met: boolean;
  /** How far the host's probe moved across the runs behind the figure (runs since 2026-11-30). */
  host?: HostSpread;
}

/** The targets' thresholds. */
const SAGA_TARGETS = {
  p99OfFloor: 1.5,
  p99UnderMsAtHighRate: 100,
  cpuAtLowRateOfCapacity: 2,
  capacityOfFloor: 0.9,
  readsOfFloor: 0.6,
  tracingOnOfOff: 0.8,
} as const;
export const LOW_RATE = 250;
const HIGH_RATE = 1000;
/** The rates the targets read, which BENCH_RATE_ROUNDS repeats. */
export const TARGET_RATES = [LOW_RATE, HIGH_RATE] as const;

/** Null when the run lacks either figure. */
const ratioOf = (a: number | null | undefined, b: number | null | undefined) => (a && b ? ratio(a, b) : null);
const thousands = (n: number) => n.toLocaleString('en-US');
/** ` (a, b; mean of 2 rounds)` when there was more than one round. */
const eachOf = (each: readonly (number | null)[], what = 'rounds') => (each.length > 1 ? ` (${each.join(', ')}; mean of ${each.length} ${what})` : '');

/** The round trips a run measured at the low rate and at the high one, and how much dearer the low rate's echo is. */
export function roundTripSpread(roundTrips: BenchResults['roundTrips']) {
  if (!roundTrips || roundTrips.length < 2) return undefined;
  const low = roundTrips[0];
  const high = roundTrips[roundTrips.length - 1];
  return { low, high, echoTimes: round(low.echoUs / high.echoUs, 1), commitTimes: round(low.commitUs.postgres / high.commitUs.postgres, 1) };
}

function p99Targets(results: BenchResults): TargetVerdict[] {
  const verdicts: TargetVerdict[] = [];
  for (const rate of TARGET_RATES) {
    const { rounds, each, mean } = p99Ratios(results, rate);
    if (mean === null) continue;
    const p99s = rounds.map(({ stack, floor }) => `${stack.decisionP99} against ${floor.decisionP99} ms`).join(', ');
    verdicts.push({
      target: `placed→decided p99 ≤ ${SAGA_TARGETS.p99OfFloor}× the floor's at ${thousands(rate)}/s`,
      figure: `${p99s}: **${mean}×**${eachOf(each)}`,
      met: mean <= SAGA_TARGETS.p99OfFloor,
      host: hostSpread(rounds.flatMap(({ stack, floor }) => [stack, floor])),
    });
  }
  const high = runsAt(results, HIGH_RATE, 'stack').filter((run) => run.decisionP99 != null);
  const p99 = meanOf(high.map((run) => run.decisionP99 as number));
  if (p99 !== null) {
    verdicts.push({
      target: `placed→decided p99 under ${SAGA_TARGETS.p99UnderMsAtHighRate} ms at ${thousands(HIGH_RATE)}/s`,
      figure: `**${p99} ms**${eachOf(high.map((run) => run.decisionP99), 'runs')}`,
      met: p99 < SAGA_TARGETS.p99UnderMsAtHighRate,
      host: hostSpread(high),
    });
  }
  return verdicts;
}

/**
 * CPU per order at the low rate over that at capacity, each the mean of its runs: each order
 * paying every hop's cycle alone shows here.
 */
function cpuTarget(results: BenchResults): TargetVerdict[] {
  const { capacity, floorCapacity, laterCapacityRounds = [], roundTrips } = results;
  const lowToCapacity = (low: RateResult[], atCapacity: (CapacityResult | undefined)[]) => {
    const [lowMs, capacityMs] = [meanCpuPerOrder(low), meanCpuPerOrder(atCapacity)];
    return { low: lowMs, capacity: capacityMs, times: ratioOf(lowMs, capacityMs), runs: [low.length, atCapacity.filter(Boolean).length] };
  };
  const stackLow = runsAt(results, LOW_RATE, 'stack');
  const stackCapacity = [capacity, ...laterCapacityRounds.map((r) => r.stack)];
  const stack = lowToCapacity(stackLow, stackCapacity);
  if (stack.times === null) return [];
  const floor = lowToCapacity(runsAt(results, LOW_RATE, 'floor'), [floorCapacity, ...laterCapacityRounds.map((r) => r.floor)]);
  const floorText = floor.times !== null ? ` (floor ${floor.low} against ${floor.capacity} ms: ${floor.times}×)` : '';
  const [lowRuns, capacityRuns] = stack.runs;
  const means = lowRuns > 1 || capacityRuns > 1 ? `; means of ${lowRuns} runs at ${LOW_RATE}/s and ${capacityRuns} at capacity` : '';
  const spread = roundTripSpread(roundTrips);
  const hostText = spread ? `; on this host a round trip between idle processes costs ${spread.echoTimes}× more at ${spread.low.rate}/s than at ${spread.high.rate}/s` : '';
  return [
    {
      target: `CPU per decided order at ${LOW_RATE}/s ≤ ${SAGA_TARGETS.cpuAtLowRateOfCapacity}× the stack's at capacity`,
      figure: `${stack.low} against ${stack.capacity} ms: **${stack.times}×**${floorText}${means}${hostText}`,
      met: stack.times <= SAGA_TARGETS.cpuAtLowRateOfCapacity,
      host: hostSpread([...stackLow, ...stackCapacity]),
    },
  ];
}

function capacityTargets({ cluster, ...singleBroker }: BenchResults): TargetVerdict[] {
  const runs = [
    ['single broker', capacityRatios(singleBroker)],
    [`the cluster (floor on the same brokers, ${floorShape(cluster ?? {})})`, capacityRatios(cluster ?? {})],
  ] as const;
  return runs.flatMap(([where, { rounds, each, mean }]) => {
    if (mean === null) return [];
    const decided = rounds.map(({ stack, floor }) => `${stack.decidedPerSecond} / ${floor.decidedPerSecond}`).join(', ');
    return [
      {
        target: `saga capacity ≥ ${SAGA_TARGETS.capacityOfFloor} of the floor, ${where}`,
        figure: `${decided} decided/s: **${mean}**${eachOf(each)}`,
        met: mean >= SAGA_TARGETS.capacityOfFloor,
        host: hostSpread(rounds.flatMap(({ stack, floor }) => [stack, floor])),
      },
    ];
  });
}

function readsTarget({ reads }: BenchResults): TargetVerdict[] {
  if (!reads?.length) return [];
  const queries = readRatios(reads);
  const rounds = queries[0].each.length;
  const figure = ({ name, each, mean }: ReadRatios) => `${name} **${mean}**${each.length > 1 ? ` (${each.join(', ')})` : ''}`;
  return [
    {
      target: `reads ≥ ${SAGA_TARGETS.readsOfFloor} of the floor, every query`,
      figure: queries.map(figure).join(', ') + (rounds > 1 ? ` (mean of ${rounds} rounds)` : ''),
      met: queries.every(({ mean }) => (mean ?? 0) >= SAGA_TARGETS.readsOfFloor),
      host: hostSpread(reads),
    },
  ];
}

function tracingTarget({ tracing }: BenchResults): TargetVerdict[] {
  if (!tracing) return [];
  const { rounds, onToOff, sampledOnToOff } = asRounds(tracing);
  if (onToOff === null) return [];
  const runs = rounds.map((r) => `${r.on.decidedPerSecond} / ${r.off.decidedPerSecond}`).join(', ');
  const mean = rounds.length > 1 ? ` (mean of ${rounds.length} rounds)` : '';
  const share = rounds[0].sampled?.ratio;
  const sampled = share !== undefined ? `; keeping ${share} of new traces (the chart's default): ${sampledOnToOff}` : '';
  return [
    {
      target: `tracing on (every span exported) ≥ ${SAGA_TARGETS.tracingOnOfOff} of off`,
      figure: `${runs} decided/s: **${onToOff}**${mean}${sampled}`,
      met: onToOff >= SAGA_TARGETS.tracingOnOfOff,
      host: hostSpread(rounds.flatMap((r) => [r.off, r.on, r.sampled?.on])),
    },
  ];
}

/** Every target the run has the figures for, in the order the targets are listed. */
export function sagaTargetVerdicts(results: BenchResults): TargetVerdict[] {
  return [...p99Targets(results), ...cpuTarget(results), ...capacityTargets(results), ...readsTarget(results), ...tracingTarget(results)];
}
