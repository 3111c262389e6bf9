// What a run measured, as docs/bench/raw-*.json keeps it and the report renders it.
import type { CapacityRound } from './capacity-rounds';
import type { MachineLoad } from './cpu-accounting';
import type { HostProbe } from './host-speed';
import type { LaterRateRound } from './rate-rounds';
import type { ReadResult } from './read-path';
import type { RoundTripCost } from './round-trip-cost';
import type { Ratio, SecurityRatios } from './security-ratios';
import type { Spread } from './cluster-spread';
import type { Settings } from './knobs';
import type { Stages } from './saga-stages';

type Figure = number | null;

/** Placed → decided of the orders a run placed, read from the database. */
export interface Decisions {
  placed: number;
  decided: number;
  undecided: number;
  decidedPerSecond: Figure;
  decisionP50: Figure;
  decisionP99: Figure;
  cpuMsPerOrder?: Record<string, number>;
  /** Context switches per decided order, every thread of each process (runs since 2026-11-29). */
  switchesPerOrder?: Record<string, number>;
  /** Time each process's threads were ready to run and found no free core, per decided order (ms; runs since the night of 2026-11-30). */
  waitingMsPerOrder?: Record<string, number>;
  brokerJitShare?: Figure;
  /** Requests the Kafka brokers handled per decided order, by kind (runs since 2026-12-03; broker-requests.ts). */
  brokerRequestsPerOrder?: Record<string, number>;
  /** The host's probe (ms) just before and just after the run (runs since 2026-11-30). */
  hostProbeMs?: HostProbe;
  /** How full the machine was during the run (runs since the afternoon of 2026-11-30). */
  machine?: MachineLoad;
}
export interface CapacityResult extends Decisions {
  placedPerSecond: Figure;
  placementP99: number;
  failed: number;
}
/** Capacity with every process tracing and exporting what its sampler keeps; on / off is what that costs. */
export interface TracedCapacity {
  on: CapacityResult;
  spansReceived: number;
  spansPerOrder: Figure;
  onToOff: Figure;
}
/** The runs of a tracing round: off, exporting every span, keeping the chart's share. */
export type TracingRun = 'off' | 'every' | 'sampled';
/** Capacity off, exporting every span and keeping the chart's share: each on the stack freshly restarted so. */
export interface TracingRound extends TracedCapacity {
  off: CapacityResult;
  /** The same keeping the chart's share of new traces (deploy/helm/petstore values `tracing.samplerRatio`), when under 1. */
  sampled?: TracedCapacity & { ratio: number };
  /** The order the round ran them in (`runOrder`); absent before 2026-11-30, when every round ran off, every, sampled. */
  order?: TracingRun[];
}
/** BENCH_TRACING_ROUNDS rounds in turn, so that the host's drift shows; the targets read the means of the rounds' on / off. */
export interface TracingRounds {
  rounds: TracingRound[];
  onToOff: Figure;
  sampledOnToOff?: Figure;
}
export interface RateResult extends Decisions {
  stages?: Stages;
  offeredRate: number;
  achievedRate: Figure;
  created: number;
  failed: number;
  placementP50: Figure;
  placementP99: Figure;
}
export interface WaitResult extends Decisions {
  offeredRate: number;
  achievedRate: Figure;
  p50: Figure;
  p99: Figure;
  answers: number;
  decidedAnswers: number;
  applied: number;
  failed: number;
}
/** Placed → decided of the orders placed in one second of a run after a lull, the first second numbered 1. */
export interface LullSecond {
  second: number;
  decided: number;
  p50: Figure;
  p99: Figure;
}
/** One pipeline's orders after BENCH_LULL_SECONDS with nothing to do (lull.ts). */
export interface LullRun {
  round: number;
  pipeline: 'floor' | 'stack';
  /** Seconds since this pipeline's own last load ended; raws before it have none. */
  ownIdleSeconds?: number;
  failed: number;
  undecided: number;
  seconds: LullSecond[];
}
export interface ReadsAndCapacity {
  reads: ReadResult[];
  capacity: CapacityResult;
}
/** An unmeasured saga capacity run, and the brokers' JIT compilers' share of their CPU during it. */
export interface WarmupRun {
  decidedPerSecond: Figure;
  brokerJitShare: Figure;
}
export interface ClusterResults {
  replicas: { services: string[]; gateways: string[] };
  /** Processes of each side of the saga floor on the cluster's brokers; raws from before it have none: one of each. */
  floorReplicas?: number;
  /** 'nats' when the floor took its orders through fronts that send each over NATS (BENCH_FLOOR_FRONT); none in raws from before it could. */
  floorFront?: 'nats';
  topics: { partitions: number; replicationFactor: number; minInsyncReplicas: number };
  reads: Record<string, { requestsPerSecond: Figure; p50: Figure; p99: Figure; failed: number }>;
  readSpread: Spread;
  warmup: WarmupRun[];
  /** The saga floor's unmeasured capacity runs on the cluster's brokers, before its first measured one; raws from before them have none. */
  floorWarmup?: WarmupRun[];
  /** The cluster's unmeasured capacity run after the floor's warm-up, just before the first round; raws from before it have none. */
  rewarm?: WarmupRun;
  capacity: CapacityResult;
  rpcSpread: Spread;
  rate: RateResult;
  onePet: CapacityResult;
  floorCapacity?: CapacityResult;
  /** Capacity's rounds after the first (BENCH_SAGA_ROUNDS), each the floor's run and the cluster's. */
  laterCapacityRounds?: CapacityRound[];
  floorRate?: RateResult;
}
export interface Environment {
  cpus: string;
  memoryGiB: Figure;
  node: string;
  postgres: string;
  kafka: string;
  nestjs: string;
  mikroOrm: string;
  kafkajs: string;
}

export interface BenchResults {
  startedAt: string;
  settings: Settings;
  memoryAtRest?: Record<string, Figure>;
  memoryUnderWriteLoad?: Record<string, number>;
  reads?: ReadResult[];
  floorCapacity?: CapacityResult;
  floorRates?: RateResult[];
  capacity?: CapacityResult;
  /** Capacity's rounds after the first (BENCH_SAGA_ROUNDS), each the floor's run and the stack's; absent in runs of one round. */
  laterCapacityRounds?: CapacityRound[];
  onePet?: CapacityResult;
  rates?: RateResult[];
  /** The fixed rates' rounds after the first (BENCH_RATE_ROUNDS), at the targets' rates; absent in runs of one round. */
  laterRateRounds?: LaterRateRound[];
  /** What one round trip between processes costs the host at the low rate and at a high one, measured before the rates. */
  roundTrips?: RoundTripCost[];
  wait?: WaitResult[];
  lull?: LullRun[];
  soak?: { rate: number; minutes: (RateResult & { minute: number })[]; tablesAtStart: Tables; tablesAtEnd: Tables };
  stockCheck?: { pets: number; stocked: number; approvedUnits: number; remaining: number; mismatches: number; exact: boolean };
  idleCpu?: Record<string, Figure>;
  /** One round (runs before 2026-11-30), or several with the means of their ratios. */
  tracing?: TracingRound | TracingRounds;
  transports?: (ReadsAndCapacity & { transport: string })[];
  security?: { runs: (ReadsAndCapacity & { mode: 'on' | 'off' })[]; onToOff: SecurityRatios; target: number };
  cluster?: ClusterResults;
  environment: Environment;
}
type Tables = Record<string, { rows: number; kib: Figure }>;
export type { Ratio };
