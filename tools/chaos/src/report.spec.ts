import { describe as line, NEW_REPORT, renderReport, summaryOf, table, tableHead, tableRows, type RunFacts, type ScenarioResult } from './report';

const result = (overrides: Partial<ScenarioResult> = {}): ScenarioResult => ({
  name: 'broker paused (SIGSTOP) 5 s',
  guarantees: 'a stalled broker only delays',
  offered: 200,
  accepted: 190,
  refused: 10,
  statuses: { '201': 190, '503': 10 },
  readStatuses: {},
  samples: { '503': 'SERVICE_UNAVAILABLE: try again' },
  serverErrors: 0,
  failedAnswers: 10,
  zeroFailures: false,
  lost: 0,
  stuck: 0,
  stockMismatches: 0,
  redelivered: 4,
  settleSeconds: 2.5,
  failures: [],
  ...overrides,
});

const facts: RunFacts = {
  startedAt: new Date('2026-01-02T03:04:05.000Z'),
  finishedAt: new Date('2026-01-02T03:14:05.000Z'),
  environment: { cpus: '2 × Test CPU', node: 'v24.0.0', postgres: '16.4' },
  rate: 20,
  pets: [400, 5],
};

describe('the tables', () => {
  it('gives the single stack a row per scenario under its heading', () => {
    expect(tableHead()[0]).toBe(
      '| scenario | orders offered | accepted | refused (503) | 5xx bugs | lost | stuck | duplicates absorbed | time to settle | invariants | what guarantees it |',
    );
    expect(tableRows([result()])).toEqual(['| broker paused (SIGSTOP) 5 s | 200 | 190 | 10 | 0 | 0 | 0 | 4 | 2.5 s | held | a stalled broker only delays |']);
  });

  it('shows a failed scenario, a missing fault point and an unsettled one', () => {
    const row = tableRows([result({ failures: ['1 accepted order(s) do not exist', 'x'], unavailable: 'no crash', settleSeconds: null })])[0];
    expect(row).toBe(
      '| broker paused (SIGSTOP) 5 s — fault point not available (no crash) | 200 | 190 | 10 | 0 | 0 | 0 | 4 | — | **failed**: 1 accepted order(s) do not exist; x | a stalled broker only delays |',
    );
  });

  it('gives the scaled stack the answers that were not 2xx, the target and the note', () => {
    expect(tableHead({ cluster: true })[1]).toBe('|---|---|---|---|---|---|---|---|---|---|---|---|');
    const row = tableRows([result({ readStatuses: { '200': 400, '502': 1 }, failedAnswers: 11, zeroFailures: true, note: 'restarted gateway-1' })], { cluster: true })[0];
    expect(row).toBe(
      '| broker paused (SIGSTOP) 5 s | 200 | 190 | 10 | 11 (503×10, 502×1), target 0 | 0 | 0 | 0 | 4 | 2.5 s | held (restarted gateway-1) | a stalled broker only delays |',
    );
  });

  it('prints the head and rows between blank lines', () => {
    expect(table([result()]).split('\n')).toEqual(['', ...tableHead(), ...tableRows([result()]), '']);
  });
});

describe('the line of a scenario', () => {
  it('tells the counts, the failing answers and the verdict', () => {
    expect(line(result({ failures: ['lag'] }))).toBe(
      'offered 200, accepted 190, refused 10 (201×190 503×10); lost 0, stuck 0, duplicates absorbed 4; settled in 2.5 s' +
        '\n[chaos]   first answers that failed: 503 SERVICE_UNAVAILABLE: try again\n[chaos]   FAILED: lag',
    );
  });
});

describe('the summary for npm test', () => {
  it('counts a test per scenario, each failure where npm test shows it', () => {
    expect(summaryOf([result(), result({ name: 'b', failures: ['one', 'two'] })])).toEqual({
      passed: 1,
      failed: 1,
      skipped: 0,
      failures: [{ where: 'scripts/chaos.mjs', test: 'b', reason: 'one; two' }],
    });
  });
});

describe('docs/RELIABILITY.md', () => {
  const run = 'Run of 2026-01-02T03:04:05.000Z (600 s in all, build and stack start included) on 2 × Test CPU; Node v24.0.0, PostgreSQL 16.4, Kafka 3.9.2. ';
  const load = 'Load: 20 orders/s offered through the gateway over 6 fresh pets per scenario (stock 400, 5), 1–3 units each';

  it('puts the tables between their markers and keeps the text around them', () => {
    const before = 'Intro\n<!-- chaos:begin -->\nold\n<!-- chaos:end -->\nMiddle\n<!-- chaos-cluster:begin -->\nold cluster\n<!-- chaos-cluster:end -->\nEnd\n';
    const after = renderReport(before, [result()], [result()], facts);
    expect(after).toBe(
      [
        'Intro',
        '<!-- chaos:begin -->',
        `${run}${load}. Settle bound: 30 s after recovery.`,
        '',
        ...tableHead(),
        ...tableRows([result()]),
        '<!-- chaos:end -->',
        'Middle',
        '<!-- chaos-cluster:begin -->',
        `${run}${load}, with a read of the pet and of its stock beside each order, through HAProxy. Settle bound: 30 s after recovery.`,
        '',
        ...tableHead({ cluster: true }),
        ...tableRows([result()], { cluster: true }),
        '<!-- chaos-cluster:end -->',
        'End',
        '',
      ].join('\n'),
    );
  });

  it("leaves the other stack's table when a run had one stack only", () => {
    const before = '<!-- chaos:begin -->\nold\n<!-- chaos:end -->\n<!-- chaos-cluster:begin -->\nold cluster\n<!-- chaos-cluster:end -->\n';
    expect(renderReport(before, [], [result()], facts)).toContain('<!-- chaos:begin -->\nold\n<!-- chaos:end -->');
  });

  it('adds the markers to a new report', () => {
    const after = renderReport(NEW_REPORT, [result()], [], facts);
    expect(after.startsWith(`${NEW_REPORT}\n<!-- chaos:begin -->\n${run}`)).toBe(true);
    expect(after.endsWith(`${tableRows([result()])[0]}\n<!-- chaos:end -->\n`)).toBe(true);
  });
});
