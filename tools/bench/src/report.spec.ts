import * as fs from 'node:fs';
import * as path from 'node:path';
import { between } from './markdown';
import { rawFileName, reportBlocks, updateReport } from './report';
import { ratio } from './figures';
import type { BenchResults, CapacityResult, RateResult, TracingRound, TracingRun } from './results';
import { summarizeRounds } from './tracing-rounds';

const capacity = (decidedPerSecond: number, extra: Partial<CapacityResult> = {}): CapacityResult => ({
  placed: 20_000,
  decided: 20_000,
  undecided: 0,
  decidedPerSecond,
  decisionP50: 12.5,
  decisionP99: 80.1,
  placedPerSecond: 1000,
  placementP99: 90,
  failed: 0,
  cpuMsPerOrder: { gateway: 0.5, orders: 0.25, postgres: 0.4 },
  switchesPerOrder: { orders: 8.2, kafka: 12.6 },
  waitingMsPerOrder: { orders: 2.77, gateway: 2.28 },
  ...extra,
});
const rate = (offeredRate: number): RateResult => ({
  ...capacity(offeredRate),
  offeredRate,
  achievedRate: offeredRate,
  created: offeredRate * 20,
  placementP50: 3.2,
  placementP99: 9.9,
  stages: { 'placed → OrderPlaced sent': { p50: 4, p90: 9 }, '→ decided': { p50: 2, p90: 3 } },
});
const read = (name: string) => ({
  name,
  transport: 'NATS',
  gateway: { requestsPerSecond: 2000, p50: 14, p99: 30, ok: 20_000, failed: 0, cpuUsPerRequest: { gateway: 300, catalog: 150 } },
  direct: { requestsPerSecond: 4000, p50: 7.5, p99: 15.25, errors: 0 },
  floor: { requestsPerSecond: 8000, p50: 3, p99: 8, ok: 80_000, failed: 0, cpuUsPerRequest: { floor: 100 } },
  gatewayToDirect: 0.5,
  gatewayToFloor: 0.25,
});

/** A run of every section of the main block, with made-up figures. */
function fullRun(): BenchResults {
  return {
    startedAt: '2026-11-28T10:00:00.000Z',
    settings: { READ_SECONDS: 10, CAPACITY_SECONDS: 20, RATE_SECONDS: 20, RATES: [100, 250], WAIT_RATES: [100], CONNECTIONS: 32, CAPACITY_CONNECTIONS: 64, SOAK_MINUTES: 0, SOAK_RATE: 200 },
    memoryAtRest: { gateway: 120.5, orders: 140 },
    memoryUnderWriteLoad: { gateway: 180, orders: 210.2 },
    reads: [read('GET /v1/categories/{id}'), read('GET /v1/pets?limit=20')],
    floorCapacity: capacity(2000),
    floorRates: [rate(100)],
    capacity: capacity(500),
    onePet: capacity(300),
    rates: [rate(100), rate(250)],
    roundTrips: [
      { rate: 250, echoUs: 700, commitUs: { postgres: 300, client: 550 } },
      { rate: 4000, echoUs: 60, commitUs: { postgres: 110, client: 90 } },
    ],
    wait: [{ ...capacity(100), offeredRate: 100, achievedRate: 99.9, p50: 40, p99: 95, answers: 2000, decidedAnswers: 1990, applied: 2000, failed: 0 }],
    stockCheck: { pets: 30, stocked: 30_000_000, approvedUnits: 1234, remaining: 29_998_766, mismatches: 0, exact: true },
    idleCpu: { gateway: 0.5, orders: 1.25 },
    tracing: {
      off: capacity(500),
      on: capacity(400),
      spansReceived: 123_456,
      spansPerOrder: 12.3,
      onToOff: 0.8,
      sampled: { ratio: 0.1, on: capacity(480), spansReceived: 12_345, spansPerOrder: 1.2, onToOff: 0.96 },
    },
    cluster: {
      replicas: { services: ['catalog-1', 'catalog-2'], gateways: ['gateway-1', 'gateway-2'] },
      topics: { partitions: 12, replicationFactor: 3, minInsyncReplicas: 2 },
      reads: { 'GET /v1/pets/{id}': { requestsPerSecond: 200, p50: 5, p99: 20, failed: 0 } },
      readSpread: { catalog: { total: 2000, shares: { 'catalog-1': 0.5, 'catalog-2': 0.5 } } },
      warmup: [{ decidedPerSecond: 300, brokerJitShare: 0.05 }],
      capacity: capacity(600, { brokerJitShare: 0.02, cpuMsPerOrder: { 'orders-1': 0.25, 'orders-2': 0.25, kafka: 1 } }),
      rpcSpread: { catalog: { total: 0, shares: {} } },
      rate: { ...rate(250), brokerJitShare: 0.01 },
      onePet: capacity(200, { brokerJitShare: 0 }),
    },
    environment: { cpus: '2 × Test CPU', memoryGiB: 8, node: 'v24.0.0', postgres: '15.0', kafka: '3.9.2', nestjs: '11.0.0', mikroOrm: '6.0.0', kafkajs: '2.2.4' },
  };
}

/** The `### ` headings between a pair of markers, each without its figures in brackets. */
const headings = (lines: string[]) => lines.filter((line) => line.startsWith('### ')).map((line) => line.replace(/ \(.*$/, ''));

function committedBlock(marker: string): string[] {
  const report = fs.readFileSync(path.join(__dirname, '../../../docs/BENCHMARKS.md'), 'utf8');
  return report.slice(report.indexOf(`<!-- ${marker}:begin -->`), report.indexOf(`<!-- ${marker}:end -->`)).split('\n');
}

/** The main block's lines for `results`, rendered as a run of 2026-11-28. */
const mainBlock = (results: BenchResults): string[] => reportBlocks(results, 'bench/raw-2026-11-28.json').bench;

describe('the report of a full run', () => {
  const blocks = reportBlocks(fullRun(), 'bench/raw-2026-11-28.json');
  const main = blocks.bench;

  it('has the sections of docs/BENCHMARKS.md, in its order', () => {
    expect(headings(main)).toEqual(headings(committedBlock('bench')));
    expect(headings(main)).toEqual(["### The lean saga's targets", '### Read path', '### Saga capacity', '### Cluster', '### Tracing on vs off', '### Saga at fixed rates', '### `Prefer: wait=5`', '### Memory']);
    expect(Object.keys(blocks)).toEqual(['bench']);
  });

  it('starts with the run line that links the raw figures', () => {
    expect(main[0]).toBe(
      'Run of 2026-11-28T10:00:00.000Z on 2 × Test CPU, 8 GiB; Node v24.0.0, PostgreSQL 15.0, Kafka 3.9.2, NestJS 11.0.0, MikroORM 6.0.0, kafkajs 2.2.4. ' +
        'The stack, the floors and the load generator share the machine. Raw figures: [bench/raw-2026-11-28.json](bench/raw-2026-11-28.json).',
    );
  });

  it('says in the fixed-rate and Prefer: wait headings when each run followed a warm-up, and nothing for a raw without one', () => {
    const heading = (lines: string[], start: string) => lines.find((line) => line.startsWith(start)) ?? '';
    const results = fullRun();
    results.settings = { ...results.settings, RATE_WARMUP_SECONDS: 3 };
    const warmed = mainBlock(results);
    expect(heading(warmed, '### Saga at fixed rates')).toContain('20 s each, each after 3 s at its rate that are not measured;');
    expect(heading(warmed, '### `Prefer: wait=5`')).toContain('requests evenly spaced, each after 3 s at its rate that are not measured)');
    expect(heading(main, '### Saga at fixed rates')).not.toContain('not measured');
    expect(heading(main, '### `Prefer: wait=5`')).not.toContain('not measured');
  });

  it("says, after the run line, when the saga floor had the gateway's hop, and nothing when it had none", () => {
    expect(main[1]).toBe('');
    expect(main[2]).toBe("### The lean saga's targets (this run's figures, against the floors of the same run)");
    const results = fullRun();
    results.settings = { ...results.settings, FLOOR_FRONT: 'nats' };
    const fronted = mainBlock(results);
    expect(fronted[2]).toMatch(/^\*\*The saga floor had the gateway's hop in this run\*\* \(`BENCH_FLOOR_FRONT=nats`\)/);
    expect(fronted[3]).toBe('');
    expect(fronted[4]).toBe(main[2]);
    expect(fronted.some((line) => line.startsWith('| saga floor (node:http front → NATS → pg + kafkajs) |'))).toBe(true);
    expect(main.some((line) => line.startsWith('| saga floor (node:http + pg + kafkajs) |'))).toBe(true);
  });

  it('opens with the targets, each beside its figure and its verdict', () => {
    const at = main.indexOf('| target | this run | verdict |');
    expect(at).toBeGreaterThan(0);
    expect(main.slice(at + 2, at + 4)).toEqual([
      "| CPU per decided order at 250/s ≤ 2× the stack's at capacity | 1.15 against 1.15 ms: **1×**; on this host a round trip between idle processes costs 11.7× more at 250/s than at 4000/s | met |",
      '| saga capacity ≥ 0.9 of the floor, single broker | 500 / 2000 decided/s: **0.25** | **not met** |',
    ]);
    expect(main).toContain("| tracing on (every span exported) ≥ 0.8 of off | 400 / 500 decided/s: **0.8**; keeping 0.1 of new traces (the chart's default): 0.96 | met |");
  });

  it("adds the host probe's spread over each target's runs, marking a move over 25 %, once the run was probed", () => {
    const results = fullRun();
    results.capacity = capacity(500, { hostProbeMs: { before: 21, after: 22 } });
    results.floorCapacity = capacity(2000, { hostProbeMs: { before: 20, after: 26 } });
    results.reads = results.reads?.map((r) => ({ ...r, hostProbeMs: { before: 20.5, after: 21 } }));
    const probed = mainBlock(results);
    expect(probed).toContain('| target | this run | verdict | host probe over its runs |');
    expect(probed).toContain('| saga capacity ≥ 0.9 of the floor, single broker | 500 / 2000 decided/s: **0.25** | **not met** | 20–26 ms: **moved 30 %** |');
    expect(probed).toContain('| reads ≥ 0.6 of the floor, every query | GET /v1/categories/{id} **0.25**, GET /v1/pets?limit=20 **0.25** | **not met** | 20.5–21 ms (2 %) |');
    expect(probed.some((line) => line.startsWith('The host probe takes the CPU time'))).toBe(true);
    expect(main.some((line) => line.includes('host probe'))).toBe(false);
  });

  it('renders the read path rows per query and the CPU per request', () => {
    const at = main.indexOf('| query | served by | requests/s | p50 ms | p99 ms |');
    expect(main.slice(at, at + 7)).toEqual([
      '| query | served by | requests/s | p50 ms | p99 ms |',
      '|---|---|---|---|---|',
      '| GET /v1/categories/{id} | gateway (HTTP → NATS → catalog) | 2000 | 14 | 30 |',
      '|  | catalog direct (NATS) | 4000 | 7.5 | 15.25 |',
      '|  | floor (node:http + pg, a statement per request) | 8000 | 3 | 8 |',
      '|  | gateway / direct | **0.5** |  |  |',
      '|  | gateway / floor | **0.25** |  |  |',
    ]);
    expect(main).toContain('- GET /v1/pets?limit=20: through the gateway gateway 300, catalog 150; **450** in all; floor floor 100; **100** in all.');
  });

  it('names each round of the read path and ends its table with the means', () => {
    const run = fullRun();
    const inRound = (name: string, round: number, gatewayToFloor: number) => ({ ...read(name), round, gatewayToFloor });
    run.reads = [inRound('GET /v1/categories/{id}', 1, 0.4), inRound('GET /v1/pets?limit=20', 1, 0.5), inRound('GET /v1/categories/{id}', 2, 0.6), inRound('GET /v1/pets?limit=20', 2, 0.7)];
    const lines = mainBlock(run);
    expect(lines).toContain('### Read path (10 s per run after a 3 s warm-up, 32 connections, in 2 rounds)');
    expect(lines).toContain('| GET /v1/pets?limit=20, round 2 | gateway (HTTP → NATS → catalog) | 2000 | 14 | 30 |');
    expect(lines).toContain('Gateway / floor, mean of the 2 rounds (each round runs every path of both queries in turn): GET /v1/categories/{id} **0.5**, GET /v1/pets?limit=20 **0.6**.');
    expect(lines).toContain('- GET /v1/categories/{id}, round 1: through the gateway gateway 300, catalog 150; **450** in all; floor floor 100; **100** in all.');
    expect(lines).toContain('| reads ≥ 0.6 of the floor, every query | GET /v1/categories/{id} **0.5** (0.4, 0.6), GET /v1/pets?limit=20 **0.6** (0.5, 0.7) (mean of 2 rounds) | **not met** |');
  });

  it('renders saga capacity beside the floor, with the ratio and the CPU per order', () => {
    expect(main).toContain('| pipeline | placed/s | decided | left undecided | decided/s | placed→decided p50 ms | p99 ms | failed |');
    expect(main).toContain('| the stack (gateway → orders → Kafka → inventory → Kafka → orders) | 1000 | 20000 | 0 | **500** | 12.5 | 80.1 | 0 |');
    expect(main).toContain('| saga floor (node:http + pg + kafkajs) | 1000 | 20000 | 0 | **2000** | 12.5 | 80.1 | 0 |');
    expect(main).toContain('Stack / floor: **0.25**.');
    expect(main).toContain('- stack: gateway 0.5, orders 0.25, postgres 0.4; **1.15 ms** in all.');
    expect(main).toContain('Context switches per decided order during that run (every thread of each process):');
    expect(main).toContain('- floor: orders 8.2, kafka 12.6; **20.8** in all.');
    expect(main).toContain('Waiting for a core per decided order during that run (ms; every thread of each process, ready to run and no core free, from /proc/<pid>/task/*/schedstat):');
    expect(main).toContain('- stack: orders 2.77, gateway 2.28; **5.05 ms** in all.');
  });

  it('shows no wait for a core where a run measured none (raw files from before it was measured)', () => {
    const run = fullRun();
    delete run.capacity?.waitingMsPerOrder;
    delete run.floorCapacity?.waitingMsPerOrder;
    for (const r of [...(run.rates ?? []), ...(run.floorRates ?? [])]) delete r.waitingMsPerOrder;
    expect(mainBlock(run).some((line) => line.startsWith('Waiting for a core'))).toBe(false);
  });

  it("shows the brokers' requests per decided order where a run counted them, and nothing for a raw without them", () => {
    const requests = { 'consumer fetch': 0.4, 'follower fetch': 0.45, produce: 0.2, other: 0.05 };
    const run = fullRun();
    run.capacity = { ...(run.capacity as CapacityResult), brokerRequestsPerOrder: requests };
    run.rates = (run.rates ?? []).map((r) => ({ ...r, brokerRequestsPerOrder: requests }));
    const cluster = run.cluster as NonNullable<BenchResults['cluster']>;
    run.cluster = { ...cluster, capacity: { ...cluster.capacity, brokerRequestsPerOrder: requests } };
    const lines = mainBlock(run);
    expect(lines).toContain('- stack: consumer fetch 0.4, follower fetch 0.45, produce 0.2, other 0.05; **1.1** in all.');
    expect(lines.filter((line) => line.startsWith('| stack | 250 | 0.4 | 0.45 | 0.2 | 0.05 | **1.1** |'))).toHaveLength(1);
    expect(lines).toContain('| cluster: capacity | 0.4 | 0.45 | 0.2 | 0.05 | **1.1** |');
    expect(mainBlock(fullRun()).some((line) => line.startsWith('Requests the broker'))).toBe(false);
  });

  it('names each round of saga capacity, the floor then the stack, and judges the target by the mean of their stack / floor', () => {
    const run = fullRun();
    run.laterCapacityRounds = [{ floor: capacity(1000), stack: capacity(750) }];
    run.cluster = { ...(run.cluster as NonNullable<BenchResults['cluster']>), floorCapacity: capacity(500), laterCapacityRounds: [{ floor: capacity(400), stack: capacity(400) }] };
    const lines = mainBlock(run);
    expect(lines).toContain("### Saga capacity (closed loop, 64 connections, 20 s of placements, decisions read from the database; in 2 rounds, each the floor's run and then the stack's)");
    expect(lines).toContain('| the stack (gateway → orders → Kafka → inventory → Kafka → orders), round 2 | 1000 | 20000 | 0 | **750** | 12.5 | 80.1 | 0 |');
    expect(lines).toContain('| saga floor (node:http + pg + kafkajs), round 1 | 1000 | 20000 | 0 | **2000** | 12.5 | 80.1 | 0 |');
    expect(lines).toContain('Stack / floor: **0.5** (mean of 0.25, 0.75).');
    expect(lines).toContain('- stack, round 2: gateway 0.5, orders 0.25, postgres 0.4; **1.15 ms** in all.');
    expect(lines).toContain('| saga capacity ≥ 0.9 of the floor, single broker | 500 / 2000, 750 / 1000 decided/s: **0.5** (0.25, 0.75; mean of 2 rounds) | **not met** |');
    expect(lines).toContain("| saga floor on the cluster's brokers: capacity, round 2 | 1000 | 20000 | **400** | **12.5** | **80.1** | 0 |");
    expect(lines).toContain('Cluster / the saga floor on the same brokers (one process of each side): **1.1** (mean of 1.2, 1); the floor on the cluster\'s brokers / the floor on the single broker: **0.25**.');
  });

  it("names how many processes of each side the saga floor ran on the cluster's brokers, in the section and in the target", () => {
    const run = fullRun();
    run.cluster = { ...(run.cluster as NonNullable<BenchResults['cluster']>), floorReplicas: 2, floorCapacity: capacity(500) };
    const lines = mainBlock(run);
    expect(lines.some((line) => line.startsWith('Cluster / the saga floor on the same brokers (two processes of each side): '))).toBe(true);
    expect(lines.some((line) => line.startsWith('| saga capacity ≥ 0.9 of the floor, the cluster (floor on the same brokers, two processes of each side) |'))).toBe(true);
  });

  it("names the fronts of a saga floor that took its orders over NATS on the cluster's brokers, in the section and in the target", () => {
    const run = fullRun();
    run.cluster = { ...(run.cluster as NonNullable<BenchResults['cluster']>), floorReplicas: 2, floorFront: 'nats', floorCapacity: capacity(500) };
    const lines = mainBlock(run);
    expect(lines.some((line) => line.startsWith('Cluster / the saga floor on the same brokers (two processes of each side, behind two fronts sending each order over NATS): '))).toBe(true);
    expect(
      lines.some((line) => line.startsWith('| saga capacity ≥ 0.9 of the floor, the cluster (floor on the same brokers, two processes of each side, behind two fronts sending each order over NATS) |')),
    ).toBe(true);
  });

  it("says what the saga floor's unmeasured runs on the cluster's brokers decided, and nothing for a raw without them", () => {
    const warmupLine = (lines: string[]) => lines.find((line) => line.startsWith('The brokers start with this section')) ?? '';
    expect(warmupLine(main)).not.toContain('saga floor');
    const run = fullRun();
    run.cluster = { ...(run.cluster as NonNullable<BenchResults['cluster']>), floorWarmup: [{ decidedPerSecond: 450, brokerJitShare: 0.3 }, { decidedPerSecond: 600, brokerJitShare: 0.04 }] };
    expect(warmupLine(mainBlock(run))).toMatch(/ The saga floor, started after them, had unmeasured runs of its own by the same rule: 450 decided\/s with 30 %, 600 decided\/s with 4 %\.$/);
  });

  it("says what the cluster's unmeasured run after the floor's warm-up decided, and nothing for a raw without it", () => {
    const warmupLine = (lines: string[]) => lines.find((line) => line.startsWith('The brokers start with this section')) ?? '';
    expect(warmupLine(main)).not.toContain('one more before the first round');
    const run = fullRun();
    run.cluster = {
      ...(run.cluster as NonNullable<BenchResults['cluster']>),
      floorWarmup: [{ decidedPerSecond: 600, brokerJitShare: 0.04 }],
      rewarm: { decidedPerSecond: 280, brokerJitShare: 0.02 },
    };
    expect(warmupLine(mainBlock(run))).toMatch(/ 600 decided\/s with 4 %\. The cluster, idle meanwhile, then had one more before the first round: 280 decided\/s with 2 %\.$/);
  });

  it('renders the rates, their stages and their CPU, the wait, the stock check and memory', () => {
    expect(main).toContain('| stack | 100 | 100 | 2000 | 0 | 3.2 | 9.9 | 100 | **12.5** | **80.1** |');
    expect(main).toContain('| floor | 100 | 100 | 2000 | 0 | 3.2 | 9.9 | 100 | **12.5** | **80.1** |');
    expect(main).toContain('| pipeline | offered/s | placed → OrderPlaced sent | → decided |');
    expect(main).toContain('| stack | 250 | 4 / 9 | 2 / 3 |');
    expect(main).toContain('| floor | 100 | 4 / 9 | 2 / 3 |');
    expect(main).toContain('| pipeline | offered/s | gateway | orders | postgres | in all |');
    expect(main).toContain('| pipeline | offered/s | orders | kafka | in all |');
    expect(main).toContain('| stack | 250 | 8.2 | 12.6 | **20.8** |');
    expect(main).toContain('| floor | 100 | 8.2 | 12.6 | **20.8** |');
    expect(main).toContain('| pipeline | offered/s | orders | gateway | in all |');
    expect(main).toContain('| stack | 250 | 2.77 | 2.28 | **5.05** |');
    expect(main).toContain('| 100 | 99.9 | 2000 | 1990 | 2000 | **40** | **95** | 0 | 12.5 / 80.1 | 1.15 |');
    expect(main).toContain('Stock check after the load: 30 pets stocked with 30000000 units, 1234 units in approved orders, 29998766 left, 0 pets where stock + approved ≠ stocked — **exact**.');
    expect(main.slice(-4)).toEqual(['| process | RSS at rest | RSS peak under load | idle CPU (% of a core) |', '|---|---|---|---|', '| gateway | 120.5 | 180 | 0.5 |', '| orders | 140 | 210.2 | 1.25 |']);
  });

  it('shows how full the machine was beside the stages of the runs that measured it, and no such columns before', () => {
    const results = fullRun();
    results.rates = [{ ...rate(250), machine: { busyCores: 1.87, waitingPercent: 61.5 } }];
    results.floorRates = [{ ...rate(250), machine: { busyCores: 1.21, waitingPercent: null } }];
    const lines = mainBlock(results);
    expect(lines).toContain('| pipeline | offered/s | placed → OrderPlaced sent | → decided | cores busy | waiting for a core, % of the run |');
    expect(lines).toContain('| stack | 250 | 4 / 9 | 2 / 3 | 1.87 | 61.5 |');
    expect(lines).toContain('| floor | 250 | 4 / 9 | 2 / 3 | 1.21 |  |');
    expect(main).toContain('| pipeline | offered/s | placed → OrderPlaced sent | → decided |');
  });

  it("names each later round of the rates and lists its runs in the order they ran", () => {
    const results = fullRun();
    const at = (offeredRate: number, decisionP99: number) => ({ ...rate(offeredRate), decisionP99 });
    results.laterRateRounds = [
      { round: 2, stack: at(250, 70), floor: at(250, 60) },
      { round: 3, stack: at(250, 50), floor: at(250, 40) },
    ];
    const lines = mainBlock(results);
    expect(lines).toContainEqual(expect.stringContaining("### Saga at fixed rates (open loop, requests evenly spaced, 20 s each; placed → decided as the orders table records it; the targets' rates in 3 rounds,"));
    const cells = (line: string) => line.split('|').map((cell) => cell.trim());
    const p99s = lines.filter((line) => / round \d \| 250 \| 250 \| 5000 /.test(line)).map((line) => [cells(line)[1], cells(line)[10]]);
    expect(p99s).toEqual([
      ['stack, round 2', '**70**'],
      ['floor, round 2', '**60**'],
      ['floor, round 3', '**40**'],
      ['stack, round 3', '**50**'],
    ]);
    expect(lines).toContain('| stack, round 2 | 250 | 8.2 | 12.6 | **20.8** |');
  });

  it("states what a round trip costs the host at the low rate and the high one, after the rates' CPU", () => {
    const line = main.find((text) => text.startsWith('What one round trip between processes costs'));
    expect(line).toContain('700 at 250/s and 60 at 4000/s (**11.7×**)');
    expect(line).toContain('PostgreSQL\'s share, 300 and 110 (**2.7×**)');
    expect(main.indexOf(line ?? '')).toBeGreaterThan(main.indexOf('| pipeline | offered/s | gateway | orders | postgres | in all |'));
  });

  it("renders tracing on at every trace and at the chart's share beside off, a run of one round as round 1", () => {
    expect(main).toContain('| 1 | on | 1000 | **400** | 12.5 | 80.1 | 0 | 1.15 |');
    expect(main).toContain("| 1 | on, 0.1 of new traces kept (the chart's default) | 1000 | **480** | 12.5 | 80.1 | 0 | 1.15 |");
    expect(main).toContain('On / off: **0.8**; 123456 spans received (12.3 per order).');
    expect(main).toContain('Keeping 0.1 of new traces, on / off: **0.96**; 12345 spans received (1.2 per order).');
  });

  it('renders every round of tracing and judges the target by the mean of their on / off', () => {
    const traced = (off: number, on: number, sampledOn: number) => ({
      off: capacity(off),
      on: capacity(on),
      spansReceived: 6000,
      spansPerOrder: 6.1,
      onToOff: ratio(on, off),
      sampled: { ratio: 0.1, on: capacity(sampledOn), spansReceived: 600, spansPerOrder: 0.6, onToOff: ratio(sampledOn, off) },
    });
    const run = { ...fullRun(), tracing: summarizeRounds([traced(500, 420, 480), traced(400, 304, 376)]) };
    const lines = mainBlock(run);

    expect(lines).toContain('| 2 | off | 1000 | **400** | 12.5 | 80.1 | 0 | 1.15 |');
    expect(lines).toContain('| 2 | on | 1000 | **304** | 12.5 | 80.1 | 0 | 1.15 |');
    expect(lines).toContain('On / off: **0.8** (mean of 0.84, 0.76); 6000, 6000 spans received (6.1, 6.1 per order).');
    expect(lines).toContain('Keeping 0.1 of new traces, on / off: **0.95** (mean of 0.96, 0.94); 600, 600 spans received (0.6, 0.6 per order).');
    expect(lines).toContain(
      "| tracing on (every span exported) ≥ 0.8 of off | 420 / 500, 304 / 400 decided/s: **0.8** (mean of 2 rounds); keeping 0.1 of new traces (the chart's default): 0.95 | met |",
    );
  });

  it('renders each tracing round in the order its runs ran, when the run kept it', () => {
    const round = (order: TracingRun[]): TracingRound => ({ off: capacity(500), on: capacity(400), spansReceived: 6000, spansPerOrder: 6.1, onToOff: 0.8, sampled: { ratio: 0.1, on: capacity(450), spansReceived: 600, spansPerOrder: 0.6, onToOff: 0.9 }, order });
    const run = { ...fullRun(), tracing: summarizeRounds([round(['off', 'every', 'sampled']), round(['sampled', 'every', 'off'])]) };
    const lines = mainBlock(run);
    const heading = lines.find((line) => line.startsWith('### Tracing on vs off'));
    expect(heading).toContain('in rounds, each run on a freshly restarted stack, in the order of the rows;');
    const roundTwo = lines.filter((line) => line.startsWith('| 2 |')).map((line) => line.split(' | ')[1]);
    expect(roundTwo).toEqual(["on, 0.1 of new traces kept (the chart's default)", 'on', 'off']);
  });

  it("names the cluster's partitions as the run had them", () => {
    const run = fullRun();
    const cluster = run.cluster as NonNullable<BenchResults['cluster']>;
    run.cluster = { ...cluster, topics: { ...cluster.topics, partitions: 6 } };
    expect(mainBlock(run).some((line) => line.startsWith('### Cluster (three brokers, RF 3, min.insync.replicas 2, 6 partitions;'))).toBe(true);
  });

  it('renders the cluster with the replicas of a tier summed', () => {
    expect(main).toContain('### Cluster (three brokers, RF 3, min.insync.replicas 2, 12 partitions; two replicas of every service, two gateways behind HAProxy)');
    expect(main).toContain('Cluster / single-broker capacity: **1.2**.');
    expect(main).toContain('| run | orders | kafka | gateway | postgres | in all |');
    expect(main).toContain('| cluster: capacity | 0.5 | 1 |  |  | **1.5** |');
  });
});

describe('runs of their own', () => {
  const base = fullRun();
  /** A run that measured only `sections`, on the full run's day, settings and machine. */
  const runOfItsOwn = (sections: Partial<BenchResults>): BenchResults => ({ startedAt: base.startedAt, settings: base.settings, environment: base.environment, ...sections });
  const security = runOfItsOwn({
    security: {
      runs: [
        { mode: 'on', reads: base.reads ?? [], capacity: capacity(450) },
        { mode: 'off', reads: base.reads ?? [], capacity: capacity(500) },
      ],
      onToOff: { sagaDecidedPerSecond: { each: [0.9], mean: 0.9 }, reads: { 'GET /v1/pets?limit=20': { gateway: { each: [0.8], mean: 0.8 }, direct: { each: [1], mean: 1 } } } },
      target: 0.9,
    },
  });

  /** `results`' block, after checking that it is the run's only one, with its own raw file and the committed block's headings. */
  const ownBlock = (results: BenchResults, section: string): string[] => {
    expect(rawFileName(results)).toBe(`raw-2026-11-28-${section}.json`);
    const blocks = reportBlocks(results, `bench/raw-2026-11-28-${section}.json`);
    expect(Object.keys(blocks)).toEqual([`bench-${section}`]);
    expect(headings(blocks[`bench-${section}`])).toEqual(headings(committedBlock(`bench-${section}`)));
    return blocks[`bench-${section}`];
  };

  it('write their own block and raw file, leaving the main block alone', () => {
    expect(rawFileName(base)).toBe('raw-2026-11-28.json');
    const block = ownBlock(security, 'security');
    expect(block).toContain('| saga decided/s | **0.9** | meets |');
    expect(block).toContain('| GET /v1/pets?limit=20 through the gateway | **0.8** | **misses** |');
  });

  it('write the lulls in their own block, the first second beside the steady ones', () => {
    const seconds = (first: number) => [1, 2, 3, 4, 5, 6].map((second) => ({ second, decided: 250, p50: second === 1 ? first : 20, p99: 60 }));
    const lull = runOfItsOwn({
      settings: { ...base.settings, LULL_SECONDS: 300, LULL_RATE: 250, LULL_LOAD_SECONDS: 10 },
      lull: [
        { round: 1, pipeline: 'floor', failed: 0, undecided: 0, seconds: seconds(30) },
        { round: 1, pipeline: 'stack', ownIdleSeconds: 610, failed: 0, undecided: 0, seconds: seconds(90) },
      ],
    });
    const block = ownBlock(lull, 'lull');
    expect(block).toContain('| 1 | stack | 610 | 90 / 60 | 20 / 60 | 20 / 60 | 20 / 60 | **4.5** | 0 | 0 |');
    expect(block).toContain('| 1 | floor | – | 30 / 60 | 20 / 60 | 20 / 60 | 20 / 60 | **1.5** | 0 | 0 |');
    expect(block).toContain('First second p50 over steady p50, mean of the rounds: the floor **1.5**, the stack **4.5**.');
  });

  it('puts a block between its markers, adding them when missing, and keeps the text around them', () => {
    const report = '# Benchmarks\nreading\n<!-- bench:begin -->\nold\n<!-- bench:end -->\nmore reading\n';
    expect(between(report, 'bench', ['new'])).toBe('# Benchmarks\nreading\n<!-- bench:begin -->\nnew\n<!-- bench:end -->\nmore reading\n');
    expect(updateReport('# Benchmarks\n', { 'bench-soak': ['a', 'b'] })).toBe('# Benchmarks\n\n<!-- bench-soak:begin -->\na\nb\n<!-- bench-soak:end -->\n');
  });
});
