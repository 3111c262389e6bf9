// The cluster section of docs/BENCHMARKS.md, beside the single-broker figures of the same run.
import { capacityRatios } from './capacity-rounds';
import { BROKER_REQUESTS_NOTE } from './cpu-accounting';
import { CLUSTER_RATE, READ_RATE, WARM_JIT_SHARE, WARMUP_MAX_RUNS } from './cluster-settings';
import type { Spread } from './cluster-spread';
import { ratio, round } from './figures';
import { table } from './markdown';
import type { BenchResults, CapacityResult, ClusterResults, RateResult, WarmupRun } from './results';

type Run = CapacityResult | RateResult;

const placedPerSecond = (r: Run) => ('placedPerSecond' in r ? r.placedPerSecond : r.achievedRate);

/** Replicas of one tier (`<tier>-<n>`) summed, so the rows compare with the single-broker figures. */
export function cpuByTier(cpu: Record<string, number>): Record<string, number | null> {
  const tiers: Record<string, number | null> = {};
  for (const [name, ms] of Object.entries(cpu)) {
    const tier = name.replace(/-\d+$/, '');
    tiers[tier] = round((tiers[tier] ?? 0) + ms, 2);
  }
  return tiers;
}

/** `n` and a noun in words: "one replica", "two gateways". */
function counted(n: number, noun: string, plural = `${noun}s`): string {
  return `${['no', 'one', 'two', 'three', 'four'][n] ?? n} ${n === 1 ? noun : plural}`;
}

/** How the saga floor ran on the cluster's brokers: raws from before its replicas ran one process of each side. */
export function floorShape(c: Pick<ClusterResults, 'floorReplicas' | 'floorFront'>): string {
  const processes = counted(c.floorReplicas ?? 1, 'process', 'processes');
  const front = c.floorFront === 'nats' ? `, behind ${counted(c.floorReplicas ?? 1, 'front')} sending each order over NATS` : '';
  return `${processes} of each side${front}`;
}

/** Each unmeasured run: decided/s, and the brokers' JIT compilers' share of their CPU. */
function warmupRuns(runs: WarmupRun[]): string {
  return runs.map((run) => `${run.decidedPerSecond} decided/s with ${Math.round((run.brokerJitShare ?? 0) * 100)} %`).join(', ');
}

/** The cluster's runs and the floor's on its brokers, by the name their rows carry. */
function clusterRuns(c: ClusterResults): [string, Run | undefined][] {
  return [
    ['cluster: capacity', c.capacity],
    [`cluster: ${CLUSTER_RATE}/s`, c.rate],
    ['cluster: one pet', c.onePet],
    ["floor on the cluster's brokers: capacity", c.floorCapacity],
    [`floor on the cluster's brokers: ${CLUSTER_RATE}/s`, c.floorRate],
  ];
}

/** A row per run of each part's figure per order, with every part any run has as a column, and the row's sum. */
function perOrderTable(heading: string, rows: (readonly [string, Record<string, number | null>])[]): string[] {
  if (rows.length === 0) return [];
  const parts = [...new Set(rows.flatMap(([, figures]) => Object.keys(figures)))];
  const total = (figures: Record<string, number | null>) => round(Object.values(figures).reduce((sum: number, value) => sum + (value ?? 0), 0), 2);
  return ['', heading, '', ...table(['run', ...parts, 'in all'], rows.map(([name, figures]) => [name, ...parts.map((part) => figures[part] ?? ''), `**${total(figures)}**`]))];
}

function cpuTable(c: ClusterResults): string[] {
  const runs = clusterRuns(c);
  return [
    ...perOrderTable(
      'CPU per decided order in the cluster (ms, every process of the machine, the replicas of a tier summed, the three brokers under kafka):',
      runs.flatMap(([name, r]) => (r?.cpuMsPerOrder ? [[name, cpuByTier(r.cpuMsPerOrder)] as const] : [])),
    ),
    ...perOrderTable(
      `Requests the brokers handled per decided order (${BROKER_REQUESTS_NOTE}):`,
      runs.flatMap(([name, r]) => (r?.brokerRequestsPerOrder ? [[name, r.brokerRequestsPerOrder] as const] : [])),
    ),
  ];
}

export function clusterReport(results: BenchResults): string[] {
  const c = results.cluster;
  if (!c) return [];
  const perTier = c.replicas.gateways.length;
  const out = ['', `### Cluster (three brokers, RF 3, min.insync.replicas 2, ${c.topics.partitions} partitions; ${counted(perTier, 'replica')} of every service, ${counted(perTier, 'gateway')} behind HAProxy)`, ''];
  const row = (name: string, r: Run) => [name, placedPerSecond(r), r.decided, `**${r.decidedPerSecond}**`, `**${r.decisionP50}**`, `**${r.decisionP99}**`, r.failed];
  const single250 = results.rates?.find((r) => r.offeredRate === CLUSTER_RATE);
  const rows = [];
  if (results.capacity) rows.push(row('single broker, one replica per tier: capacity', results.capacity));
  const { rounds, each, mean } = capacityRatios(c);
  const firstRound = rounds.length > 1 ? ', round 1' : '';
  rows.push(row(`cluster: capacity${firstRound}`, c.capacity));
  if (results.onePet) rows.push(row('single broker: capacity, every order on one pet', results.onePet));
  rows.push(row('cluster: capacity, every order on one pet', c.onePet));
  if (single250) rows.push(row(`single broker: ${CLUSTER_RATE} orders/s`, single250));
  rows.push(row(`cluster: ${CLUSTER_RATE} orders/s`, c.rate));
  if (c.floorCapacity) rows.push(row(`saga floor on the cluster's brokers: capacity${firstRound}`, c.floorCapacity));
  if (c.floorRate) rows.push(row(`saga floor on the cluster's brokers: ${CLUSTER_RATE} orders/s`, c.floorRate));
  rounds.slice(1).forEach(({ stack, floor }, i) => {
    rows.push(row(`saga floor on the cluster's brokers: capacity, round ${i + 2}`, floor), row(`cluster: capacity, round ${i + 2}`, stack));
  });
  out.push(...table(['run', 'placed/s', 'decided', 'decided/s', 'placed→decided p50 ms', 'p99 ms', 'failed'], rows));
  const decidedRatio = (a: Run, b: Run) => ratio(a.decidedPerSecond, b.decidedPerSecond);
  if (results.capacity) out.push('', `Cluster / single-broker capacity: **${decidedRatio(c.capacity, results.capacity)}**.`);
  if (c.floorCapacity) {
    const ofSingle = results.floorCapacity ? `; the floor on the cluster's brokers / the floor on the single broker: **${decidedRatio(c.floorCapacity, results.floorCapacity)}**` : '';
    const ofFloor = `**${mean}**${rounds.length > 1 ? ` (mean of ${each.join(', ')})` : ''}`;
    out.push('', `Cluster / the saga floor on the same brokers (${floorShape(c)}): ${ofFloor}${ofSingle}.`);
  }
  if (c.warmup?.length) {
    const runs = warmupRuns(c.warmup);
    const measured = [c.capacity, c.rate, c.onePet].map((run) => `${Math.round((run.brokerJitShare ?? 0) * 100)} %`).join(', ');
    out.push(
      '',
      `The brokers start with this section, so unmeasured saga capacity runs came first, until their JIT compilers took under ${WARM_JIT_SHARE * 100} % of their CPU or for ${WARMUP_MAX_RUNS} runs at most (decided/s, and the compilers' share of the brokers' CPU): ${runs}. During the three measured cluster runs above (capacity, ${CLUSTER_RATE}/s, one pet): ${measured}.` +
        (c.floorWarmup?.length ? ` The saga floor, started after them, had unmeasured runs of its own by the same rule: ${warmupRuns(c.floorWarmup)}.` : '') +
        (c.rewarm ? ` The cluster, idle meanwhile, then had one more before the first round: ${warmupRuns([c.rewarm])}.` : ''),
    );
  }
  const stages = c.rate.stages;
  if (stages) {
    const names = Object.keys(stages);
    const stageRow = (name: string, r: RateResult) => [name, ...names.map((stage) => `${r.stages?.[stage].p50} / ${r.stages?.[stage].p90}`)];
    out.push('', `Where placed → decided goes at ${CLUSTER_RATE}/s (p50 / p90 ms of each stage, as in the single-broker section):`, '');
    out.push(...table(['run', ...names], [...(single250?.stages ? [stageRow('single broker', single250)] : []), stageRow('cluster', c.rate)]));
  }
  out.push(...cpuTable(c));
  const spread = (of: Spread | undefined) =>
    Object.entries(of ?? {})
      .filter(([, s]) => s.total > 0)
      .map(([tier, s]) => `${tier} ${Object.values(s.shares).join(' / ')} of ${s.total}`)
      .join('; ');
  const reads = Object.entries(c.reads ?? {}).map(([name, r]) => `${name} ${r.requestsPerSecond}/s, p50 ${r.p50} ms, p99 ${r.p99} ms, ${r.failed} failed`);
  out.push('', `Share of RPC requests each replica served, from each replica's own metrics: during reads at ${READ_RATE}/s through HAProxy (${reads.join('; ')}): ${spread(c.readSpread)}; during the ${rounds.length > 1 ? 'first ' : ''}saga capacity run: ${spread(c.rpcSpread)}.`);
  return out;
}
