// The shape of a scenario (scenarios.ts, cluster-scenarios.ts), what its fault is given, and
// which scenarios a run chooses.
import type { kafkajs } from '@petstore/kafka';
import type { Api, OrderLoad, StockedPet } from './load';
import type { ChaosLayout, ChaosStack } from './processes';

/** What a fault found out: a note for the report, failures of its own, or that its fault point is missing. */
export interface FaultOutcome {
  note?: string;
  unavailable?: string;
  failures?: string[];
}

/** `L`: the layout of the stack the scenario runs on (the single stack's, or the scaled one's). */
export interface ScenarioContext<L extends ChaosLayout = ChaosLayout> {
  stack: ChaosStack;
  layout: L;
  api: Api;
  kafka: kafkajs.Kafka;
  load: OrderLoad;
  namespace: string;
  waitReady: () => Promise<void>;
  /** Creates `count` pets, stocking each with its `stocks` entry (null: never stocked). */
  seedPets: (count: number, stocks: (number | null)[]) => Promise<StockedPet[]>;
  produce: (topic: string, key: string | undefined, envelope: Record<string, unknown>, options?: { partition?: number; headers?: Record<string, string> }) => Promise<void>;
  /** Event ids of the forged events the consumers must refuse to the dead-letter topics. */
  poisoned: Set<string>;
  /** Marks the moment "after recovery" counts from, if the fault has nothing left to restart. */
  recovered: () => number;
  /** The major version of this machine's PostgreSQL cluster. */
  postgresCluster: string;
}

export type Fault<L extends ChaosLayout = ChaosLayout> = (context: ScenarioContext<L>) => Promise<FaultOutcome | void>;

/**
 * A fault under load. Its `fault` resolves once everything it broke is back: the moment "after
 * recovery" counts from, unless it calls `recovered()` earlier. `short` ones also run in
 * `npm test`, some with a gentler `shortFault` (and its `shortName`).
 */
export interface Scenario<L extends ChaosLayout = ChaosLayout> {
  name: string;
  guarantees: string;
  fault: Fault<L>;
  short?: boolean;
  shortName?: string;
  shortFault?: Fault<L>;
  /** A scenario whose relay publishes again: the topic whose republished events count as duplicates absorbed. */
  duplicatesOn?: string;
  /** No client may see a failure: every answer of the load that is not 2xx counts against it. */
  zeroFailures?: boolean;
}

/**
 * The scenarios a run takes, in order: with `short`, the ones marked short, under their short
 * name; with `only`, those whose name contains it.
 */
export function chooseScenarios<L extends ChaosLayout>(scenarios: Scenario<L>[], { short, only }: { short: boolean; only?: string }): Scenario<L>[] {
  return scenarios
    .filter((s) => !short || s.short)
    .filter((s) => !only || s.name.includes(only))
    .map((s) => (short ? { ...s, name: s.shortName ?? s.name } : s));
}

/** The fault a run applies: the gentler one in a short run, where there is one. */
export function faultOf<L extends ChaosLayout>(scenario: Scenario<L>, short: boolean): Fault<L> {
  return (short && scenario.shortFault) || scenario.fault;
}
