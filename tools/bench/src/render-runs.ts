// The blocks of the runs of their own (BENCH_ONLY=transports, security, soak, lull): each between its
// own markers of docs/BENCHMARKS.md, after the run line.
import { cpuTotal } from './cpu-accounting';
import { round } from './figures';
import { lullSummary, meanFirstToSteady } from './lull-summary';
import { table } from './markdown';
import type { BenchResults, ReadsAndCapacity } from './results';
import type { Ratio } from './security-ratios';

const capacityRow = (name: string, { capacity: c }: ReadsAndCapacity) => [name, c.placedPerSecond, `**${c.decidedPerSecond}**`, c.decisionP50, c.decisionP99, c.failed, cpuTotal(c)];
const capacityHead = (first: string) => [first, 'placed/s', 'decided/s', 'placed→decided p50 ms', 'p99 ms', 'failed', 'CPU ms per order'];

export function transportsBlock({ transports, settings: s }: BenchResults, runLine: string): string[] {
  if (!transports) return [];
  return [
    runLine,
    '',
    `### RPC transports (the stack restarted with each in turn; reads ${s.READ_SECONDS} s per run, ${s.CONNECTIONS} connections; saga capacity as above)`,
    '',
    ...table(
      ['RPC_TRANSPORT', 'query', 'gateway req/s', 'p99 ms', 'catalog direct req/s', 'p99 ms', 'floor req/s', 'gateway / floor', 'direct / floor'],
      transports.flatMap((t) =>
        t.reads.map((r) => [
          t.transport,
          r.name,
          r.gateway.requestsPerSecond,
          r.gateway.p99,
          r.direct.requestsPerSecond,
          r.direct.p99,
          r.floor.requestsPerSecond,
          `**${r.gatewayToFloor}**`,
          `**${round((r.direct.requestsPerSecond ?? 0) / (r.floor.requestsPerSecond ?? 0), 2)}**`,
        ]),
      ),
    ),
    '',
    ...table(capacityHead('RPC_TRANSPORT'), transports.map((t) => capacityRow(t.transport, t))),
  ];
}

export function securityBlock({ security, settings: s }: BenchResults, runLine: string): string[] {
  if (!security) return [];
  const { runs, onToOff, target } = security;
  const mean = (r: Ratio) => `**${r.mean}**${r.each.length > 1 ? ` (${r.each.join(', ')})` : ''}`;
  const verdict = (r: Ratio) => (r.mean === null ? '' : r.mean >= target ? 'meets' : '**misses**');
  return [
    runLine,
    '',
    `### Bus security on vs off (the stack restarted with each in turn; reads ${s.READ_SECONDS} s per run, ${s.CONNECTIONS} connections; saga capacity as above; the rate limit counted in Redis in both)`,
    '',
    ...table(
      ['bus security', 'query', 'gateway req/s', 'p99 ms', 'catalog direct req/s', 'p99 ms', 'floor req/s', 'gateway / floor'],
      runs.flatMap((run) => run.reads.map((r) => [run.mode, r.name, r.gateway.requestsPerSecond, r.gateway.p99, r.direct.requestsPerSecond, r.direct.p99, r.floor.requestsPerSecond, `**${r.gatewayToFloor}**`])),
    ),
    '',
    ...table(capacityHead('bus security'), runs.map((run) => capacityRow(run.mode, run))),
    '',
    `On / off, mean of the pairs run next to each other (each pair in brackets); target ≥ ${target}, reported, not enforced:`,
    '',
    ...table(
      ['figure', 'on / off', 'target'],
      [
        ['saga decided/s', mean(onToOff.sagaDecidedPerSecond), verdict(onToOff.sagaDecidedPerSecond)],
        ...Object.entries(onToOff.reads).flatMap(([name, r]) => [
          [`${name} through the gateway`, mean(r.gateway), verdict(r.gateway)],
          [`${name} catalog direct`, mean(r.direct), verdict(r.direct)],
        ]),
      ],
    ),
  ];
}

export function soakBlock({ soak }: BenchResults, runLine: string): string[] {
  if (!soak) return [];
  return [
    runLine,
    '',
    `### Soak (${soak.minutes.length} min at ${soak.rate} orders/s)`,
    '',
    ...table(
      ['minute', 'placed/s', 'decided/s', 'placed→decided p50 ms', 'p99 ms', 'failed', 'CPU ms per order'],
      soak.minutes.map((m) => [m.minute, m.achievedRate, m.decidedPerSecond, m.decisionP50, m.decisionP99, m.failed, cpuTotal(m)]),
    ),
    '',
    'Messaging tables (rows / KiB) at the start and the end:',
    '',
    ...table(
      ['table', 'start', 'end'],
      Object.keys(soak.tablesAtEnd).map((name) => [name, `${soak.tablesAtStart[name].rows} / ${soak.tablesAtStart[name].kib}`, `${soak.tablesAtEnd[name].rows} / ${soak.tablesAtEnd[name].kib}`]),
    ),
  ];
}

export function lullBlock({ lull, settings: s }: BenchResults, runLine: string): string[] {
  if (!lull) return [];
  const summaries = lull.map(lullSummary);
  const at = (second: { p50: number | null; p99: number | null } | undefined) => (second ? `${second.p50} / ${second.p99}` : '–');
  return [
    runLine,
    '',
    `### After a lull (${s.LULL_SECONDS} s with nothing to do, then ${s.LULL_RATE} orders/s for ${s.LULL_LOAD_SECONDS} s, no warm-up; placed → decided p50 / p99 ms of the orders placed in each second)`,
    '',
    ...table(
      ['round', 'pipeline', 'its own processes idle, s', '1st second', '2nd', '3rd', 'steady (median of the seconds from the 5th)', '1st second p50 / steady p50', 'failed', 'undecided'],
      summaries.map((summary, i) => [
        summary.round,
        summary.pipeline,
        lull[i].ownIdleSeconds ?? '–',
        at(summary.firstSeconds[0]),
        at(summary.firstSeconds[1]),
        at(summary.firstSeconds[2]),
        `${summary.steadyP50} / ${summary.steadyP99}`,
        `**${summary.firstToSteady}**`,
        lull[i].failed,
        lull[i].undecided,
      ]),
    ),
    '',
    `First second p50 over steady p50, mean of the rounds: the floor **${meanFirstToSteady(summaries, 'floor')}**, the stack **${meanFirstToSteady(summaries, 'stack')}**.`,
  ];
}
