import type { BenchResults, CapacityResult, RateResult } from './results';
import { sagaTargetVerdicts } from './saga-targets';

const capacity = (decidedPerSecond: number, cpuMs = 0.5): CapacityResult => ({
  placed: 20_000,
  decided: 20_000,
  undecided: 0,
  decidedPerSecond,
  decisionP50: 40,
  decisionP99: 90,
  placedPerSecond: decidedPerSecond,
  placementP99: 20,
  failed: 0,
  cpuMsPerOrder: { orders: cpuMs / 2, postgres: cpuMs / 2 },
});
const rate = (offeredRate: number, decisionP99: number, cpuMs: number): RateResult => ({
  ...capacity(offeredRate, cpuMs),
  decisionP99,
  offeredRate,
  achievedRate: offeredRate,
  created: offeredRate * 20,
  placementP50: 2,
  placementP99: 8,
});
const read = (name: string, gatewayToFloor: number) => ({
  name,
  transport: 'NATS',
  gateway: { requestsPerSecond: 6000 * gatewayToFloor, p50: 2, p99: 8, ok: 1, failed: 0 },
  direct: { requestsPerSecond: 9000, p50: 1, p99: 5, errors: 0 },
  floor: { requestsPerSecond: 6000, p50: 1, p99: 3, ok: 1, failed: 0 },
  gatewayToDirect: 0.6,
  gatewayToFloor,
});
const base = { startedAt: '2026-11-29T00:00:00.000Z', settings: {} as BenchResults['settings'], environment: {} as BenchResults['environment'] };

/** A full run's figures: each target either met or missed by a little, as `meets` says. */
function run(meets: boolean): BenchResults {
  return {
    ...base,
    capacity: capacity(meets ? 2700 : 2600, 0.6),
    floorCapacity: capacity(3000, 0.6),
    rates: [rate(250, meets ? 30 : 30.2, meets ? 1.2 : 1.21), rate(1000, meets ? 99 : 100, 0.7)],
    floorRates: [rate(250, 20, 4.8), rate(1000, 66, 0.8)],
    reads: [read('GET /v1/categories/{id}', 0.6), read('GET /v1/pets?limit=20', meets ? 0.6 : 0.59)],
    tracing: { off: capacity(3000), on: capacity(meets ? 2400 : 2370), spansReceived: 1, spansPerOrder: 6, onToOff: meets ? 0.8 : 0.79 },
    cluster: {
      capacity: capacity(meets ? 900 : 890),
      floorCapacity: capacity(1000),
    } as BenchResults['cluster'],
  };
}

describe("the lean saga's targets", () => {
  it('are each met at their threshold', () => {
    const verdicts = sagaTargetVerdicts(run(true));
    expect(verdicts.map((v) => [v.target, v.met])).toEqual([
      ["placed→decided p99 ≤ 1.5× the floor's at 250/s", true],
      ["placed→decided p99 ≤ 1.5× the floor's at 1,000/s", true],
      ['placed→decided p99 under 100 ms at 1,000/s', true],
      ["CPU per decided order at 250/s ≤ 2× the stack's at capacity", true],
      ['saga capacity ≥ 0.9 of the floor, single broker', true],
      ['saga capacity ≥ 0.9 of the floor, the cluster (floor on the same brokers, one process of each side)', true],
      ['reads ≥ 0.6 of the floor, every query', true],
      ['tracing on (every span exported) ≥ 0.8 of off', true],
    ]);
  });

  it('are each missed just past their threshold', () => {
    expect(sagaTargetVerdicts(run(false)).map((v) => v.met)).toEqual([false, false, false, false, false, false, false, false]);
  });

  it("show the run's figures and the floor's beside the ratio", () => {
    const figures = sagaTargetVerdicts(run(true)).map((v) => v.figure);
    expect(figures).toEqual([
      '30 against 20 ms: **1.5×**',
      '99 against 66 ms: **1.5×**',
      '**99 ms**',
      '1.2 against 0.6 ms: **2×** (floor 4.8 against 0.6 ms: 8×)',
      '2700 / 3000 decided/s: **0.9**',
      '900 / 1000 decided/s: **0.9**',
      'GET /v1/categories/{id} **0.6**, GET /v1/pets?limit=20 **0.6**',
      '2400 / 3000 decided/s: **0.8**',
    ]);
  });

  it("add what a round trip costs the host to the CPU figure when it was measured", () => {
    const results = run(true);
    results.roundTrips = [
      { rate: 250, echoUs: 700, commitUs: { postgres: 300, client: 550 } },
      { rate: 4000, echoUs: 60, commitUs: { postgres: 110, client: 90 } },
    ];
    expect(sagaTargetVerdicts(results)[3].figure).toBe(
      '1.2 against 0.6 ms: **2×** (floor 4.8 against 0.6 ms: 8×); on this host a round trip between idle processes costs 11.7× more at 250/s than at 4000/s',
    );
  });

  it('read the mean of the read rounds, each query against the threshold, each round shown', () => {
    const results = run(true);
    const inRound = (name: string, gatewayToFloor: number, round: number) => ({ ...read(name, gatewayToFloor), round });
    results.reads = [
      inRound('GET /v1/categories/{id}', 0.7, 1),
      inRound('GET /v1/pets?limit=20', 0.66, 1),
      inRound('GET /v1/categories/{id}', 0.5, 2),
      inRound('GET /v1/pets?limit=20', 0.52, 2),
    ];
    const [verdict] = sagaTargetVerdicts(results).filter((v) => v.target.startsWith('reads'));
    expect(verdict).toEqual({
      target: 'reads ≥ 0.6 of the floor, every query',
      figure: 'GET /v1/categories/{id} **0.6** (0.7, 0.5), GET /v1/pets?limit=20 **0.59** (0.66, 0.52) (mean of 2 rounds)',
      met: false,
    });
  });

  it('read the mean of the capacity rounds, on one broker and on the cluster, each round shown', () => {
    const results = run(true);
    results.laterCapacityRounds = [{ floor: capacity(2500), stack: capacity(2000) }];
    results.cluster = { ...(results.cluster as NonNullable<BenchResults['cluster']>), laterCapacityRounds: [{ floor: capacity(1000), stack: capacity(920) }] };
    const verdicts = sagaTargetVerdicts(results).filter((v) => v.target.startsWith('saga capacity'));
    expect(verdicts).toEqual([
      {
        target: 'saga capacity ≥ 0.9 of the floor, single broker',
        figure: '2700 / 3000, 2000 / 2500 decided/s: **0.85** (0.9, 0.8; mean of 2 rounds)',
        met: false,
      },
      {
        target: 'saga capacity ≥ 0.9 of the floor, the cluster (floor on the same brokers, one process of each side)',
        figure: '900 / 1000, 920 / 1000 decided/s: **0.91** (0.9, 0.92; mean of 2 rounds)',
        met: true,
      },
    ]);
  });

  it("read the means of the rate rounds and of the capacity rounds, each round shown", () => {
    const results = run(true);
    results.laterRateRounds = [
      { round: 2, stack: rate(250, 40, 1.4), floor: rate(250, 20, 4.6) },
      { round: 2, stack: rate(1000, 110, 0.7), floor: rate(1000, 100, 0.8) },
    ];
    results.laterCapacityRounds = [{ floor: capacity(2500), stack: capacity(2000, 0.7) }];
    const verdicts = sagaTargetVerdicts(results).slice(0, 4);
    expect(verdicts).toEqual([
      {
        target: "placed→decided p99 ≤ 1.5× the floor's at 250/s",
        figure: '30 against 20 ms, 40 against 20 ms: **1.75×** (1.5, 2; mean of 2 rounds)',
        met: false,
      },
      {
        target: "placed→decided p99 ≤ 1.5× the floor's at 1,000/s",
        figure: '99 against 66 ms, 110 against 100 ms: **1.3×** (1.5, 1.1; mean of 2 rounds)',
        met: true,
      },
      { target: 'placed→decided p99 under 100 ms at 1,000/s', figure: '**104.5 ms** (99, 110; mean of 2 runs)', met: false },
      {
        target: "CPU per decided order at 250/s ≤ 2× the stack's at capacity",
        figure: '1.3 against 0.65 ms: **2×** (floor 4.7 against 0.55 ms: 8.55×); means of 2 runs at 250/s and 2 at capacity',
        met: true,
      },
    ]);
  });

  it('read a later round at a rate only against the runs at that rate', () => {
    const results = run(true);
    results.laterRateRounds = [{ round: 2, stack: rate(1000, 200, 0.7), floor: rate(1000, 100, 0.8) }];
    expect(sagaTargetVerdicts(results)[0].figure).toBe('30 against 20 ms: **1.5×**');
  });

  it("carry how far the host's probe moved across the runs behind each figure", () => {
    const results = run(true);
    const probed = <T extends object>(figures: T, before: number, after: number) => ({ ...figures, hostProbeMs: { before, after } });
    results.capacity = probed(results.capacity as CapacityResult, 21, 22);
    results.floorCapacity = probed(results.floorCapacity as CapacityResult, 20, 30);
    results.rates = (results.rates as RateResult[]).map((r) => probed(r, 20, 20.5));
    results.floorRates = (results.floorRates as RateResult[]).map((r) => probed(r, 20.2, 20.4));
    const host = Object.fromEntries(sagaTargetVerdicts(results).map((v) => [v.target, v.host]));
    expect(host).toEqual({
      "placed→decided p99 ≤ 1.5× the floor's at 250/s": { fastestMs: 20, slowestMs: 20.5, moved: 0.02 },
      "placed→decided p99 ≤ 1.5× the floor's at 1,000/s": { fastestMs: 20, slowestMs: 20.5, moved: 0.02 },
      'placed→decided p99 under 100 ms at 1,000/s': { fastestMs: 20, slowestMs: 20.5, moved: 0.02 },
      "CPU per decided order at 250/s ≤ 2× the stack's at capacity": { fastestMs: 20, slowestMs: 22, moved: 0.1 },
      'saga capacity ≥ 0.9 of the floor, single broker': { fastestMs: 20, slowestMs: 30, moved: 0.5 },
      'saga capacity ≥ 0.9 of the floor, the cluster (floor on the same brokers, one process of each side)': undefined,
      'reads ≥ 0.6 of the floor, every query': undefined,
      'tracing on (every span exported) ≥ 0.8 of off': undefined,
    });
  });

  it("add the chart's share of traces to the tracing figure when it was measured", () => {
    const results = run(true);
    results.tracing = { ...(results.tracing as NonNullable<BenchResults['tracing']>), sampled: { ratio: 0.1, on: capacity(2700), spansReceived: 1, spansPerOrder: 0.6, onToOff: 0.9 } };
    expect(sagaTargetVerdicts(results).at(-1)?.figure).toBe("2400 / 3000 decided/s: **0.8**; keeping 0.1 of new traces (the chart's default): 0.9");
  });

  it('leave out what the run did not measure', () => {
    expect(sagaTargetVerdicts(base)).toEqual([]);
    const { floorRates, cluster, ...withoutFloorRatesOrCluster } = run(true);
    expect(floorRates && cluster).toBeTruthy();
    expect(sagaTargetVerdicts(withoutFloorRatesOrCluster).map((v) => v.target)).toEqual([
      'placed→decided p99 under 100 ms at 1,000/s',
      "CPU per decided order at 250/s ≤ 2× the stack's at capacity",
      'saga capacity ≥ 0.9 of the floor, single broker',
      'reads ≥ 0.6 of the floor, every query',
      'tracing on (every span exported) ≥ 0.8 of off',
    ]);
  });
});
