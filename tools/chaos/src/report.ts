// How a run is shown: a line per scenario while it runs, the tables on the console and in
// docs/RELIABILITY.md, and the summary `npm test` counts.
import { SETTLE_SECONDS } from './invariants';
import type { StatusCounts } from './load';

/** One scenario's outcome: the load's counts, what the invariants found, and the fault's note. */
export interface ScenarioResult {
  name: string;
  guarantees: string;
  offered: number;
  accepted: number;
  refused: number;
  statuses: StatusCounts;
  readStatuses: StatusCounts;
  samples: Record<string, string>;
  serverErrors: number;
  failedAnswers: number;
  zeroFailures: boolean;
  lost: number;
  stuck: number;
  stockMismatches: number;
  redelivered: number;
  settleSeconds: number | null;
  failures: string[];
  note?: string;
  unavailable?: string;
}

export interface TableOptions {
  /** The scaled stack's table: with a column of every answer that was not 2xx, and the fault's note. */
  cluster?: boolean;
}

export const seconds = (ms: number): number => Math.round(ms / 100) / 10;

const statusList = (statuses: StatusCounts | undefined) =>
  Object.entries(statuses ?? {})
    .map(([status, count]) => `${status}×${count}`)
    .join(' ');

/** The line logged once a scenario is judged. */
export function describe(result: ScenarioResult): string {
  const statuses = statusList(result.statuses);
  const reads = Object.keys(result.readStatuses ?? {}).length ? `; reads ${statusList(result.readStatuses)}` : '';
  const samples = Object.entries(result.samples ?? {});
  return (
    `offered ${result.offered}, accepted ${result.accepted}, refused ${result.refused} (${statuses}${reads}); lost ${result.lost}, ` +
    `stuck ${result.stuck}, duplicates absorbed ${result.redelivered}; settled in ${result.settleSeconds ?? '—'} s` +
    (result.unavailable ? `; fault point NOT AVAILABLE: ${result.unavailable}` : '') +
    (result.note ? `; ${result.note}` : '') +
    (samples.length ? `\n[chaos]   first answers that failed: ${samples.map(([status, sample]) => `${status} ${sample}`).join(' | ')}` : '') +
    (result.failures.length ? `\n[chaos]   FAILED: ${result.failures.join('; ')}` : '; every invariant held')
  );
}

export function tableRows(results: ScenarioResult[], { cluster = false }: TableOptions = {}): string[] {
  return results.map((r) => {
    const verdict = r.failures.length ? `**failed**: ${r.failures.join('; ')}` : 'held';
    const name = r.unavailable ? `${r.name} — fault point not available (${r.unavailable})` : r.name;
    // On the scaled stack every answer that was not 2xx is shown, orders and reads, by status.
    const failed = [r.statuses, r.readStatuses].flatMap((statuses) => Object.entries(statuses ?? {})).filter(([status]) => !/^2/.test(status));
    const answers = `${r.failedAnswers}${failed.length ? ` (${failed.map(([status, count]) => `${status}×${count}`).join(', ')})` : ''}${r.zeroFailures ? ', target 0' : ''}`;
    return (
      `| ${name} | ${r.offered} | ${r.accepted} | ${r.refused} | ${cluster ? `${answers} | ` : ''}${r.serverErrors} | ${r.lost} | ${r.stuck} | ` +
      `${r.redelivered} | ${r.settleSeconds === null ? '—' : `${r.settleSeconds} s`} | ${verdict}${cluster && r.note ? ` (${r.note})` : ''} | ${r.guarantees} |`
    );
  });
}

export function tableHead({ cluster = false }: TableOptions = {}): string[] {
  const failed = cluster ? ' answers not 2xx (orders and reads) |' : '';
  return [
    `| scenario | orders offered | accepted | refused (503) |${failed} 5xx bugs | lost | stuck | duplicates absorbed | time to settle | invariants | what guarantees it |`,
    `|---|---|---|---|${cluster ? '---|' : ''}---|---|---|---|---|---|---|`,
  ];
}

export function table(results: ScenarioResult[], options?: TableOptions): string {
  return ['', ...tableHead(options), ...tableRows(results, options), ''].join('\n');
}

/** `npm test`'s counts of a short run: one test per scenario (the file it reads from JEST_SUMMARY_DIR). */
export function summaryOf(results: ScenarioResult[]) {
  const failures = results.filter((r) => r.failures.length > 0).map((r) => ({ where: 'scripts/chaos.mjs', test: r.name, reason: r.failures.join('; ') }));
  return { passed: results.length - failures.length, failed: failures.length, skipped: 0, failures };
}

export interface RunFacts {
  startedAt: Date;
  finishedAt: Date;
  environment: { cpus: string; node: string; postgres: string };
  /** Orders offered per second, and the stock of each scenario's pets. */
  rate: number;
  pets: number[];
}

export const NEW_REPORT = '# Reliability\n\n`npm run chaos` writes the tables below.\n';

/**
 * docs/RELIABILITY.md (`report`, its text now) with the run's tables between its markers, one pair
 * for each stack; the text around them is written by hand. A run of one stack only leaves the other's.
 */
export function renderReport(report: string, results: ScenarioResult[], clusterResults: ScenarioResult[], facts: RunFacts): string {
  const run =
    `Run of ${facts.startedAt.toISOString()} (${seconds(facts.finishedAt.getTime() - facts.startedAt.getTime())} s in all, build and stack start included) on ` +
    `${facts.environment.cpus}; Node ${facts.environment.node}, PostgreSQL ${facts.environment.postgres}, Kafka 3.9.2. `;
  const load = `Load: ${facts.rate} orders/s offered through the gateway over 6 fresh pets per scenario (stock ${facts.pets.join(', ')}), 1–3 units each`;
  const replace = (marker: string, lines: string[]) => {
    const begin = `<!-- ${marker}:begin -->`;
    const end = `<!-- ${marker}:end -->`;
    if (!report.includes(begin)) report += `\n${begin}\n${end}\n`;
    report = `${report.slice(0, report.indexOf(begin))}${begin}\n${lines.join('\n')}\n${report.slice(report.indexOf(end))}`;
  };
  if (results.length) {
    replace('chaos', [`${run}${load}. Settle bound: ${SETTLE_SECONDS} s after recovery.`, '', ...tableHead(), ...tableRows(results)]);
  }
  if (clusterResults.length) {
    replace('chaos-cluster', [
      `${run}${load}, with a read of the pet and of its stock beside each order, through HAProxy. Settle bound: ${SETTLE_SECONDS} s after recovery.`,
      '',
      ...tableHead({ cluster: true }),
      ...tableRows(clusterResults, { cluster: true }),
    ]);
  }
  return report;
}
