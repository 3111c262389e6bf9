// The lean saga's targets, each beside what one run measured and whether it was met, so that a
// full run reports every target at once from its own figures (floors of the same run).
import { capacityRatios } from './capacity-rounds';
import { cpuTotal } from './cpu-accounting';
import { ratio, round } from './figures';
import { type HostSpread, hostSpread } from './host-speed';
import type { BenchResults, Decisions, RateResult } from './results';
import { readRatios, type ReadRatios } from './read-rounds';
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

const atRate = (list: RateResult[] | undefined, rate: number) => list?.find((r) => r.offeredRate === rate);
/** Null when the run lacks either figure. */
const ratioOf = (a: number | null | undefined, b: number | null | undefined) => (a && b ? ratio(a, b) : null);
const thousands = (n: number) => n.toLocaleString('en-US');

/** The round trips a run measured at the low rate and at the high one, and how much dearer the low rate's echo is. */
export function roundTripSpread(roundTrips: BenchResults['roundTrips']) {
  if (!roundTrips || roundTrips.length < 2) return undefined;
  const low = roundTrips[0];
  const high = roundTrips[roundTrips.length - 1];
  return { low, high, echoTimes: round(low.echoUs / high.echoUs, 1), commitTimes: round(low.commitUs.postgres / high.commitUs.postgres, 1) };
}

function p99Targets({ rates, floorRates }: BenchResults): TargetVerdict[] {
  const verdicts: TargetVerdict[] = [];
  for (const rate of [LOW_RATE, HIGH_RATE]) {
    const [stack, floor] = [atRate(rates, rate), atRate(floorRates, rate)];
    const times = ratioOf(stack?.decisionP99, floor?.decisionP99);
    if (times === null) continue;
    verdicts.push({
      target: `placed→decided p99 ≤ ${SAGA_TARGETS.p99OfFloor}× the floor's at ${thousands(rate)}/s`,
      figure: `${stack?.decisionP99} against ${floor?.decisionP99} ms: **${times}×**`,
      met: times <= SAGA_TARGETS.p99OfFloor,
      host: hostSpread([stack, floor]),
    });
  }
  const high = atRate(rates, HIGH_RATE);
  if (high?.decisionP99 != null) {
    verdicts.push({
      target: `placed→decided p99 under ${SAGA_TARGETS.p99UnderMsAtHighRate} ms at ${thousands(HIGH_RATE)}/s`,
      figure: `**${high.decisionP99} ms**`,
      met: high.decisionP99 < SAGA_TARGETS.p99UnderMsAtHighRate,
      host: hostSpread([high]),
    });
  }
  return verdicts;
}

/** CPU per order at the low rate over that at capacity: each order paying every hop's cycle alone shows here. */
function cpuTarget({ rates, capacity, floorRates, floorCapacity, roundTrips }: BenchResults): TargetVerdict[] {
  const lowToCapacity = (low: Decisions | undefined, atCapacity: Decisions | undefined) =>
    low?.cpuMsPerOrder && atCapacity?.cpuMsPerOrder ? { low: cpuTotal(low), capacity: cpuTotal(atCapacity), times: ratioOf(cpuTotal(low), cpuTotal(atCapacity)) } : undefined;
  const lowRate = atRate(rates, LOW_RATE);
  const stack = lowToCapacity(lowRate, capacity);
  if (!stack || stack.times === null) return [];
  const floor = lowToCapacity(atRate(floorRates, LOW_RATE), floorCapacity);
  const floorText = floor?.times != null ? ` (floor ${floor.low} against ${floor.capacity} ms: ${floor.times}×)` : '';
  const spread = roundTripSpread(roundTrips);
  const hostText = spread ? `; on this host a round trip between idle processes costs ${spread.echoTimes}× more at ${spread.low.rate}/s than at ${spread.high.rate}/s` : '';
  return [
    {
      target: `CPU per decided order at ${LOW_RATE}/s ≤ ${SAGA_TARGETS.cpuAtLowRateOfCapacity}× the stack's at capacity`,
      figure: `${stack.low} against ${stack.capacity} ms: **${stack.times}×**${floorText}${hostText}`,
      met: stack.times <= SAGA_TARGETS.cpuAtLowRateOfCapacity,
      host: hostSpread([lowRate, capacity]),
    },
  ];
}

function capacityTargets({ cluster, ...singleBroker }: BenchResults): TargetVerdict[] {
  const runs = [
    ['single broker', capacityRatios(singleBroker)],
    ['the cluster (floor on the same brokers)', capacityRatios(cluster ?? {})],
  ] as const;
  return runs.flatMap(([where, { rounds, each, mean }]) => {
    if (mean === null) return [];
    const decided = rounds.map(({ stack, floor }) => `${stack.decidedPerSecond} / ${floor.decidedPerSecond}`).join(', ');
    const eachRound = rounds.length > 1 ? ` (${each.join(', ')}; mean of ${rounds.length} rounds)` : '';
    return [
      {
        target: `saga capacity ≥ ${SAGA_TARGETS.capacityOfFloor} of the floor, ${where}`,
        figure: `${decided} decided/s: **${mean}**${eachRound}`,
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
