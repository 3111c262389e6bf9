// The figures of the main run as docs/BENCHMARKS.md shows them, section by section.
import { capacityRatios } from './capacity-rounds';
import { BROKER_REQUESTS_NOTE, cpuTotal, requestsTotal, switchesTotal, waitingTotal } from './cpu-accounting';
import { HOST_MOVED_LIMIT, hostSpreadText } from './host-speed';
import { table } from './markdown';
import { stackRanFirst } from './rate-rounds';
import { clusterReport } from './render-cluster';
import type { BenchResults, CapacityResult, RateResult } from './results';
import { roundTripSpread, sagaTargetVerdicts } from './saga-targets';
import type { ReadResult } from './read-path';
import { readRatios } from './read-rounds';
import { asRounds } from './tracing-rounds';

/** The line every block of the report starts with: when, on what, and where the raw figures are. */
export function runLine({ startedAt, environment: e }: BenchResults, rawLink: string): string {
  return (
    `Run of ${startedAt} on ${e.cpus}, ${e.memoryGiB} GiB; Node ${e.node}, PostgreSQL ${e.postgres}, ` +
    `Kafka ${e.kafka}, NestJS ${e.nestjs}, MikroORM ${e.mikroOrm}, kafkajs ${e.kafkajs}. The stack, the floors and the ` +
    `load generator share the machine. Raw figures: [${rawLink}](${rawLink}).`
  );
}

/** Every target the run measured, first: the sections below hold the figures behind each. */
function targetsSection(results: BenchResults): string[] {
  const verdicts = sagaTargetVerdicts(results);
  if (verdicts.length === 0) return [];
  const heading = ['', "### The lean saga's targets (this run's figures, against the floors of the same run)", ''];
  const verdict = (met: boolean) => (met ? 'met' : '**not met**');
  if (!verdicts.some((v) => v.host)) return [...heading, ...table(['target', 'this run', 'verdict'], verdicts.map((v) => [v.target, v.figure, verdict(v.met)]))];
  return [
    ...heading,
    ...table(['target', 'this run', 'verdict', 'host probe over its runs'], verdicts.map((v) => [v.target, v.figure, verdict(v.met), hostSpreadText(v.host)])),
    '',
    `The host probe takes the CPU time the bench's thread spends on the same fixed work (JSON and SHA-256 over order-shaped values) just before and just after each run behind a figure: the fastest and slowest probe, and how much slower the slowest was. Over ${Math.round(HOST_MOVED_LIMIT * 100)} % is marked: the host itself changed speed between the runs the ratio compares.`,
  ];
}

function readsSection({ reads, settings: s }: BenchResults): string[] {
  if (!reads) return [];
  const queries = readRatios(reads);
  const rounds = queries[0]?.each.length ?? 1;
  const inRounds = rounds > 1 ? `, in ${rounds} rounds` : '';
  const out = ['', `### Read path (${s.READ_SECONDS} s per run after a 3 s warm-up, ${s.CONNECTIONS} connections${inRounds})`, ''];
  const query = (r: ReadResult) => (r.round ? `${r.name}, round ${r.round}` : r.name);
  out.push(
    ...table(
      ['query', 'served by', 'requests/s', 'p50 ms', 'p99 ms'],
      reads.flatMap((r) => [
        [query(r), `gateway (HTTP → ${r.transport} → catalog)`, r.gateway.requestsPerSecond, r.gateway.p50, r.gateway.p99],
        ['', `catalog direct (${r.transport})`, r.direct.requestsPerSecond, r.direct.p50, r.direct.p99],
        ['', 'floor (node:http + pg, a statement per request)', r.floor.requestsPerSecond, r.floor.p50, r.floor.p99],
        ['', 'gateway / direct', `**${r.gatewayToDirect}**`, '', ''],
        ['', 'gateway / floor', `**${r.gatewayToFloor}**`, '', ''],
        ...(r.baseline
          ? [
              ['', `baseline gateway (${r.baseline.build})`, r.baseline.requestsPerSecond, r.baseline.p50, r.baseline.p99],
              ['', 'baseline / floor', `**${r.baselineToFloor}**`, '', ''],
            ]
          : []),
      ]),
    ),
  );
  if (rounds > 1) {
    out.push('', `Gateway / floor, mean of the ${rounds} rounds (each round runs every path of both queries in turn): ${queries.map((q) => `${q.name} **${q.mean}**`).join(', ')}.`);
  }
  const cpuLine = (cpu: Record<string, number>) =>
    `${Object.entries(cpu).map(([part, us]) => `${part} ${us}`).join(', ')}; **${Object.values(cpu).reduce((sum, us) => sum + us, 0)}** in all`;
  const withCpu = reads.filter((r) => r.gateway.cpuUsPerRequest && r.floor.cpuUsPerRequest);
  if (withCpu.length > 0) {
    out.push('', 'CPU per request while each ran (µs, from /proc, every process that took part; the ratio of the totals is roughly the inverse of the ratio of requests/s, both runs having the same two cores):', '');
    for (const r of withCpu) out.push(`- ${query(r)}: through the gateway ${cpuLine(r.gateway.cpuUsPerRequest ?? {})}; floor ${cpuLine(r.floor.cpuUsPerRequest ?? {})}.`);
  }
  return out;
}

function capacitySection(results: BenchResults): string[] {
  const { capacity, floorCapacity, settings: s } = results;
  if (!capacity && !floorCapacity) return [];
  const { rounds, each, mean } = capacityRatios(results);
  const inRound = (name: string, i: number) => (rounds.length > 1 ? `${name}, round ${i + 1}` : name);
  const heading = `### Saga capacity (closed loop, ${s.CAPACITY_CONNECTIONS} connections, ${s.CAPACITY_SECONDS} s of placements, decisions read from the database${rounds.length > 1 ? `; in ${rounds.length} rounds, each the floor's run and then the stack's` : ''})`;
  const out = ['', heading, ''];
  const row = (name: string, c: CapacityResult) => [name, c.placedPerSecond, c.decided, c.undecided, `**${c.decidedPerSecond}**`, c.decisionP50, c.decisionP99, c.failed];
  // A run with one of the two pipelines only has no rounds to pair; it is shown as one round.
  const runs: { stack?: CapacityResult; floor?: CapacityResult }[] = rounds.length > 0 ? rounds : [{ stack: capacity, floor: floorCapacity }];
  const rows = runs.flatMap(({ stack, floor }, i) => [
    ...(stack ? [row(inRound('the stack (gateway → orders → Kafka → inventory → Kafka → orders)', i), stack)] : []),
    ...(floor ? [row(inRound(s.FLOOR_FRONT === 'nats' ? 'saga floor (node:http front → NATS → pg + kafkajs)' : 'saga floor (node:http + pg + kafkajs)', i), floor)] : []),
  ]);
  const pipelines = runs.flatMap(({ stack, floor }, i) => [[inRound('stack', i), stack] as const, [inRound('floor', i), floor] as const]);
  out.push(...table(['pipeline', 'placed/s', 'decided', 'left undecided', 'decided/s', 'placed→decided p50 ms', 'p99 ms', 'failed'], rows));
  if (mean !== null) out.push('', `Stack / floor: **${mean}**${rounds.length > 1 ? ` (mean of ${each.join(', ')})` : ''}.`);
  out.push('', `CPU per decided order during ${rounds.length > 1 ? 'each' : 'that'} run (ms; a process that shows 0.5 ms per order can take at most 2,000 orders/s of one core):`, '');
  out.push(...perOrderLines(pipelines, 'cpuMsPerOrder', (c) => `${cpuTotal(c)} ms`));
  const switchLines = perOrderLines(pipelines, 'switchesPerOrder', (c) => `${switchesTotal(c)}`);
  if (switchLines.length > 0) out.push('', `Context switches per decided order during ${rounds.length > 1 ? 'each' : 'that'} run (every thread of each process):`, '', ...switchLines);
  const waitingLines = perOrderLines(pipelines, 'waitingMsPerOrder', (c) => `${waitingTotal(c)} ms`);
  if (waitingLines.length > 0) out.push('', `Waiting for a core per decided order during ${rounds.length > 1 ? 'each' : 'that'} run (ms; every thread of each process, ready to run and no core free, from /proc/<pid>/task/*/schedstat):`, '', ...waitingLines);
  const requestLines = perOrderLines(pipelines, 'brokerRequestsPerOrder', (c) => `${requestsTotal(c)}`);
  if (requestLines.length > 0) out.push('', `Requests the broker handled per decided order during ${rounds.length > 1 ? 'each' : 'that'} run (${BROKER_REQUESTS_NOTE}):`, '', ...requestLines);
  return out;
}

function tracingSection({ tracing }: BenchResults): string[] {
  if (!tracing) return [];
  const { rounds, onToOff, sampledOnToOff } = asRounds(tracing);
  const row = (round: number, name: string, c: CapacityResult) => [round, name, c.placedPerSecond, `**${c.decidedPerSecond}**`, c.decisionP50, c.decisionP99, c.failed, cpuTotal(c)];
  const each = (ratios: (number | null)[]) => (ratios.length > 1 ? ` (mean of ${ratios.join(', ')})` : '');
  const sampled = rounds.flatMap((r) => (r.sampled ? [r.sampled] : []));
  const spans = (runs: { spansReceived: number; spansPerOrder: number | null }[]) =>
    `${runs.map((r) => r.spansReceived).join(', ')} spans received (${runs.map((r) => r.spansPerOrder).join(', ')} per order)`;
  return [
    '',
    // Runs before rounds were kept restarted the stack for "on" only.
    `### Tracing on vs off (saga capacity as above, ${'rounds' in tracing ? `in rounds, each run on a freshly restarted stack${rounds.some((r) => r.order) ? ', in the order of the rows' : ''}` : 'run one after the other'}; on = every process exporting OTLP/HTTP protobuf to a receiver in the benchmark process that counts the spans without decoding them)`,
    '',
    ...table(
      ['round', 'tracing', 'placed/s', 'decided/s', 'placed→decided p50 ms', 'p99 ms', 'failed', 'CPU ms per order'],
      rounds.flatMap((r, i) => {
        const rows = {
          off: row(i + 1, 'off', r.off),
          every: row(i + 1, 'on', r.on),
          sampled: r.sampled ? row(i + 1, `on, ${r.sampled.ratio} of new traces kept (the chart's default)`, r.sampled.on) : undefined,
        };
        return (r.order ?? ['off', 'every', 'sampled']).flatMap((run) => (rows[run] ? [rows[run]] : []));
      }),
    ),
    '',
    `On / off: **${onToOff}**${each(rounds.map((r) => r.onToOff))}; ${spans(rounds)}.`,
    ...(sampled.length > 0
      ? [`Keeping ${sampled[0].ratio} of new traces, on / off: **${sampledOnToOff}**${each(sampled.map((r) => r.onToOff))}; ${spans(sampled)}.`]
      : []),
  ];
}

function ratesSection({ rates, floorRates, laterRateRounds = [], roundTrips, settings: s }: BenchResults): string[] {
  if (!rates && !floorRates) return [];
  // Each later round's runs in the order they ran, after every run of the first round.
  const both = [
    ...(rates ?? []).map((r) => ['stack', r] as const),
    ...(floorRates ?? []).map((r) => ['floor', r] as const),
    ...laterRateRounds.flatMap(({ round, stack, floor }) => {
      const runs = [[`stack, round ${round}`, stack] as const, [`floor, round ${round}`, floor] as const];
      return stackRanFirst(round) ? runs : runs.reverse();
    }),
  ];
  const rounds = laterRateRounds.length > 0 ? Math.max(...laterRateRounds.map((r) => r.round)) : 1;
  const inRounds =
    rounds > 1
      ? `; the targets' rates in ${rounds} rounds, the first with every rate, floor then stack, and each later round in the other order than the one before`
      : '';
  const out = ['', `### Saga at fixed rates (open loop, requests evenly spaced, ${s.RATE_SECONDS} s each${warmedUp(s)}; placed → decided as the orders table records it${inRounds})`, ''];
  out.push(
    ...table(
      ['pipeline', 'offered/s', 'placed/s', '201s', 'failed', '201 p50 ms', '201 p99 ms', 'decided/s', 'placed→decided p50 ms', 'p99 ms'],
      both.map(([name, r]) => [name, r.offeredRate, r.achievedRate, r.created, r.failed, r.placementP50, r.placementP99, r.decidedPerSecond, `**${r.decisionP50}**`, `**${r.decisionP99}**`]),
    ),
  );
  const staged = both.filter(([, r]) => r.stages);
  if (staged.length > 0) {
    const names = Object.keys(staged[0][1].stages ?? {});
    const loaded = staged.some(([, r]) => r.machine);
    out.push(
      '',
      `Where placed → decided goes, per order, in each pipeline (p50 / p90 ms of each stage; database times are transaction starts, Kafka times the relay's send${loaded ? "; beside them how full the machine was: the cores busy on average, and the share of the run in which some task was ready and found no free core, from /proc/pressure/cpu" : ''}):`,
      '',
    );
    const load = (r: RateResult) => (loaded ? [r.machine?.busyCores ?? '', r.machine?.waitingPercent ?? ''] : []);
    out.push(
      ...table(
        ['pipeline', 'offered/s', ...names, ...(loaded ? ['cores busy', 'waiting for a core, % of the run'] : [])],
        staged.map(([name, r]) => [name, r.offeredRate, ...names.map((stage) => `${r.stages?.[stage].p50} / ${r.stages?.[stage].p90}`), ...load(r)]),
      ),
    );
  }
  out.push(
    ...perOrderTable(both, 'cpuMsPerOrder', cpuTotal, "CPU per decided order at each rate (ms, every process of the machine; at a low rate each order pays every hop's cycle by itself):"),
    ...perOrderTable(
      both,
      'switchesPerOrder',
      switchesTotal,
      'Context switches per decided order at each rate (every thread of each process, from /proc: each is a thread put to sleep and woken again, so the CPU per order above divided by these is what a wake-up costs there):',
    ),
    ...perOrderTable(
      both,
      'waitingMsPerOrder',
      waitingTotal,
      'Waiting for a core per decided order at each rate (ms; every thread of each process, ready to run and no core free, from /proc/<pid>/task/*/schedstat: where the stages above wait when the machine is full):',
    ),
    ...perOrderTable(both, 'brokerRequestsPerOrder', requestsTotal, `Requests the broker handled per decided order at each rate (${BROKER_REQUESTS_NOTE}):`),
  );
  return [...out, ...roundTripLine(roundTrips)];
}

/** The figures a run keeps per decided order for each process (or, for the brokers' requests, each kind of request). */
type PerOrderFigure = 'cpuMsPerOrder' | 'switchesPerOrder' | 'waitingMsPerOrder' | 'brokerRequestsPerOrder';

/** A line per pipeline that has `figure`: each part's figure per order, then the machine's total. */
function perOrderLines(
  pipelines: readonly (readonly [string, CapacityResult | undefined])[],
  figure: PerOrderFigure,
  total: (run: CapacityResult) => string,
): string[] {
  return pipelines.flatMap(([name, run]) => {
    const perOrder = run?.[figure];
    return perOrder ? [`- ${name}: ${Object.entries(perOrder).map(([part, value]) => `${part} ${value}`).join(', ')}; **${total(run)}** in all.`] : [];
  });
}

/** One figure per order of every part at each rate, the stack's rows and the floor's, with the machine's total. */
function perOrderTable(
  runs: (readonly [string, RateResult])[],
  figure: PerOrderFigure,
  total: (run: RateResult) => number,
  heading: string,
): string[] {
  const measured = runs.filter(([, r]) => r[figure]);
  if (measured.length === 0) return [];
  const parts = [...new Set(measured.flatMap(([, r]) => Object.keys(r[figure] ?? {})))];
  return ['', heading, '', ...table(['pipeline', 'offered/s', ...parts, 'in all'], measured.map(([name, r]) => [name, r.offeredRate, ...parts.map((part) => r[figure]?.[part] ?? ''), `**${total(r)}**`]))];
}

/** The host's own cost of a round trip at a low and a high rate, against which the CPU per order at each rate reads. */
function roundTripLine(roundTrips: BenchResults['roundTrips']): string[] {
  const spread = roundTripSpread(roundTrips);
  if (!spread) return [];
  const { low, high } = spread;
  return [
    '',
    `What one round trip between processes costs this host's CPU, measured before the rates (\`node scripts/bench.mjs round-trip-cost\`, µs): ` +
      `two otherwise idle processes echoing a message, ${low.echoUs} at ${low.rate}/s and ${high.echoUs} at ${high.rate}/s (**${spread.echoTimes}×**); ` +
      `a single-row commit, PostgreSQL's share, ${low.commitUs.postgres} and ${high.commitUs.postgres} (**${spread.commitTimes}×**). ` +
      'Every order crosses processes many times, in the stack and in the floor alike (see "What a round trip costs this host" in BENCHMARKS-HISTORY.md).',
  ];
}

/** How a fixed-rate run started; raws from before the warm-up was a setting say nothing. */
function warmedUp({ RATE_WARMUP_SECONDS: seconds }: BenchResults['settings']): string {
  return seconds ? `, each after ${seconds} s at its rate that are not measured` : '';
}

function waitSection({ wait, settings: s }: BenchResults): string[] {
  if (!wait) return [];
  return [
    '',
    `### \`Prefer: wait=5\` (what a client sees: the 201 carries the decision; requests evenly spaced${warmedUp(s)})`,
    '',
    ...table(
      ['offered/s', 'answered/s', 'answers', 'decided in the answer', 'Preference-Applied', 'p50 ms', 'p99 ms', 'failed', 'placed→decided p50 / p99 ms (same orders)', 'CPU ms per order'],
      wait.map((w) => [w.offeredRate, w.achievedRate, w.answers, w.decidedAnswers, w.applied, `**${w.p50}**`, `**${w.p99}**`, w.failed, `${w.decisionP50} / ${w.decisionP99}`, cpuTotal(w)]),
    ),
  ];
}

function stockAndMemory({ stockCheck: c, memoryAtRest, memoryUnderWriteLoad, idleCpu }: BenchResults): string[] {
  const out: string[] = [];
  if (c) {
    out.push(
      '',
      `Stock check after the load: ${c.pets} pets stocked with ${c.stocked} units, ${c.approvedUnits} units in approved orders, ` +
        `${c.remaining} left, ${c.mismatches} pets where stock + approved ≠ stocked — **${c.exact ? 'exact' : 'NOT exact'}**.`,
    );
  }
  if (memoryAtRest) {
    out.push('', '### Memory (RSS, MiB) and idle CPU', '');
    out.push(
      ...table(
        ['process', 'RSS at rest', 'RSS peak under load', 'idle CPU (% of a core)'],
        Object.keys(memoryAtRest).map((name) => [name, memoryAtRest[name], memoryUnderWriteLoad?.[name] ?? '', idleCpu?.[name] ?? '']),
      ),
    );
  }
  return out;
}

/** A run whose saga floor took its orders through a front (BENCH_FLOOR_FRONT) says so before any figure compared with it. */
function floorFrontLine({ settings }: BenchResults): string[] {
  if (settings.FLOOR_FRONT !== 'nats') return [];
  return [
    '',
    "**The saga floor had the gateway's hop in this run** (`BENCH_FLOOR_FRONT=nats`): a node:http front of its own took each order and sent it over the stack's NATS server (TLS, a user of its own) to the floor's orders process, which placed it and answered the same way. Every figure against the floor below compares the stack with a floor that has the one hop the stack's design requires; on the cluster's brokers too, where the floor ran as many fronts as it had processes of each side, on one port the kernel spreads connections over (the cluster's gateways are behind HAProxy).",
  ];
}

/** The main block (between `bench:begin` and `bench:end`): the targets, then the sections in the order the report has always had. */
export function renderMain(results: BenchResults, rawLink: string): string[] {
  return [
    runLine(results, rawLink),
    ...floorFrontLine(results),
    ...targetsSection(results),
    ...readsSection(results),
    ...capacitySection(results),
    ...clusterReport(results),
    ...tracingSection(results),
    ...ratesSection(results),
    ...waitSection(results),
    ...stockAndMemory(results),
  ];
}
