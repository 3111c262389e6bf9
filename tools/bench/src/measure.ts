// The saga's measurements through a target (the stack or the floor): closed loop as fast as it
// takes orders, open loop at a rate, and `Prefer: wait`; decisions read from the target's database.
import type { Pool } from 'pg';
import { withBrokerRequests } from './broker-requests';
import { cannon } from './cannon';
import type { CapacityRuns } from './capacity-rounds';
import { log, round, sleep } from './figures';
import { withHostProbe } from './host-speed';
import { SAGA_ROUNDS, SETTINGS } from './knobs';
import { type OnResponse, pacedLoad } from './paced-load';
import { withCpuPerOrder } from './proc-cpu';
import type { Target } from './target';

/**
 * `run` with the CPU each part of the machine spent and the requests the brokers handled per
 * decided order, and the host's probe just before and after (the probe and the brokers' reading
 * outside the CPU window: both are work of this process's or of a JVM it starts).
 */
function measuredRun<T extends { decided: number }>(target: Target, run: () => Promise<T>) {
  return withHostProbe(() => withBrokerRequests(() => withCpuPerOrder(target.processes, run)));
}

export async function dbNow(db: Pool): Promise<Date> {
  const { rows } = await db.query<{ now: Date }>('select now() as now');
  return rows[0].now;
}

/**
 * Orders placed since `since`, once every one is decided (a minute at most): how many, the
 * rate at which they were decided (first placed → last decided) and placed → decided latency.
 */
export async function decisions({ db, table }: Pick<Target, 'db' | 'table'>, since: Date) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const { rows } = await db.query(`select count(*)::int as open from ${table} where created_at >= $1 and status = 'placed'`, [since]);
    if (rows[0].open === 0 || Date.now() > deadline) break;
    await sleep(250);
  }
  const { rows } = await db.query<{ placed: number; decided: number; span: number | null; latency: number[] | null }>(
    `select count(*)::int as placed,
            count(*) filter (where status <> 'placed')::int as decided,
            extract(epoch from max(updated_at) filter (where status <> 'placed') - min(created_at))::float8 as span,
            percentile_cont(array[0.5, 0.99]) within group (order by extract(epoch from updated_at - created_at) * 1000)
              filter (where status <> 'placed') as latency
       from ${table} where created_at >= $1`,
    [since],
  );
  const row = rows[0];
  return {
    placed: row.placed,
    decided: row.decided,
    undecided: row.placed - row.decided,
    decidedPerSecond: row.span !== null && row.span > 0 ? round(row.decided / row.span) : null,
    decisionP50: round(row.latency?.[0]),
    decisionP99: round(row.latency?.[1]),
  };
}

/** `target`'s order requests at `rate` a second, evenly spaced, whatever the answers do (open loop). */
export async function paced(target: Target, { rate, seconds, extraHeaders, onResponse }: { rate: number; seconds: number; extraHeaders?: Record<string, string>; onResponse?: OnResponse }) {
  const request = target.request(extraHeaders);
  const result = await pacedLoad({
    url: target.url,
    method: request.method,
    headers: request.headers,
    body: () => request.setupRequest({}).body,
    rate,
    durationSeconds: seconds,
    onResponse,
  });
  return { ...result, requestsPerSecond: round(result.requestsPerSecond), p50: round(result.p50), p99: round(result.p99) };
}

/**
 * Closed loop through `target` as fast as it takes orders; decisions read from its database
 * afterwards, the CPU each part of the machine spent per decided order, and the host's probe
 * around the run.
 */
export async function capacity(target: Target) {
  return measuredRun(target, async () => {
    const since = await dbNow(target.db);
    const placement = await cannon({ url: target.url, duration: SETTINGS.CAPACITY_SECONDS, connections: SETTINGS.CAPACITY_CONNECTIONS, requests: [target.request()] });
    const decided = await decisions(target, since);
    return { ...decided, placedPerSecond: placement.requestsPerSecond, placementP99: placement.p99, failed: placement.failed };
  });
}
export type Capacity = Awaited<ReturnType<typeof capacity>>;

/**
 * Capacity in SAGA_ROUNDS rounds, each the floor's run and then the stack's: this host's speed
 * drifts within minutes, so a stack / floor of runs far apart would measure the drift. One round
 * when only one of the two is measured. `where` names the runs in the log.
 */
export async function capacityInRounds(floor: (() => Promise<Capacity>) | undefined, stack: (() => Promise<Capacity>) | undefined, where = ''): Promise<CapacityRuns> {
  const runs: CapacityRuns = {};
  if (!floor && !stack) return runs;
  const rounds = floor && stack ? SAGA_ROUNDS : 1;
  for (let i = 0; i < rounds; i += 1) {
    log(`${where}saga capacity${rounds > 1 ? `, round ${i + 1} of ${rounds}` : ''}: ${[floor && 'the floor', stack && 'the stack'].filter(Boolean).join(', then ')}`);
    const floorRun = await floor?.();
    const stackRun = await stack?.();
    if (i === 0) {
      if (floorRun) runs.floorCapacity = floorRun;
      if (stackRun) runs.capacity = stackRun;
    } else if (floorRun && stackRun) {
      (runs.laterCapacityRounds ??= []).push({ floor: floorRun, stack: stackRun });
    }
  }
  return runs;
}

/**
 * `target`'s orders at `rate` for RATE_WARMUP_SECONDS, unmeasured, just before a measured run
 * at that rate. A pipeline that idled while the other ran pays for waking up in its first
 * second: on 2026-11-30, with the stack never loaded before (no capacity section in the run),
 * its first two seconds at 250/s had a p99 of 230 ms against 46–85 ms in each later second.
 */
async function warmUp(target: Target, rate: number, extraHeaders?: Record<string, string>) {
  if (SETTINGS.RATE_WARMUP_SECONDS > 0) await paced(target, { rate, seconds: SETTINGS.RATE_WARMUP_SECONDS, extraHeaders });
}

/** Open loop at `rate` orders/s, after a warm-up; placed → decided as recorded by the database (no polling load). */
export async function atRate(target: Target, rate: number, seconds = SETTINGS.RATE_SECONDS) {
  await warmUp(target, rate);
  return measuredRun(target, async () => {
    const since = await dbNow(target.db);
    const placement = await paced(target, { rate, seconds });
    const decided = await decisions(target, since);
    return {
      ...(target.stages && { stages: await target.stages(since) }),
      offeredRate: rate,
      achievedRate: placement.requestsPerSecond,
      created: placement.ok,
      failed: placement.failed,
      placementP50: placement.p50,
      placementP99: placement.p99,
      ...decided,
    };
  });
}
export type AtRate = Awaited<ReturnType<typeof atRate>>;

/**
 * What a client sees with `Prefer: wait=5`: the 201 arrives with the decision. Placed →
 * decided of the same orders, from the database, tells the held answer's release apart.
 */
export async function withWait(target: Target, rate: number) {
  let decidedAnswers = 0;
  let applied = 0;
  let answers = 0;
  const onResponse: OnResponse = (_status, body, responseHeaders) => {
    answers += 1;
    if (!/"status":"placed"/.test(body)) decidedAnswers += 1;
    if (responseHeaders['preference-applied'] !== undefined) applied += 1;
  };
  await warmUp(target, rate, { prefer: 'wait=5' });
  return measuredRun(target, async () => {
    const since = await dbNow(target.db);
    const result = await paced(target, { rate, seconds: SETTINGS.RATE_SECONDS, extraHeaders: { prefer: 'wait=5' }, onResponse });
    const decided = await decisions(target, since);
    return { offeredRate: rate, achievedRate: result.requestsPerSecond, p50: result.p50, p99: result.p99, answers, decidedAnswers, applied, failed: result.failed, ...decided };
  });
}
