// BENCH_LULL_SECONDS=<n>: the first orders after n seconds in which the machine had nothing to do,
// the floor's and the stack's, second by second (with BENCH_ONLY=lull, a run of its own). A shop's
// traffic comes and goes; the fixed rates' warm-up keeps this out of every other figure.
import { log, round, sleep } from './figures';
import { LULL_ROUNDS, SETTINGS } from './knobs';
import { dbNow, decisions, paced } from './measure';
import { stackRanFirst } from './rate-rounds';
import type { LullRun, LullSecond } from './results';
import type { Target } from './target';

/**
 * LULL_ROUNDS rounds, each the floor and the stack in turn (in the other order than the round
 * before, as the fixed rates' rounds): LULL_SECONDS with no load anywhere, then LULL_RATE orders/s
 * for LULL_LOAD_SECONDS, with no warm-up and no host probe (the probe's work would wake the host).
 * Each pipeline first takes the same load unmeasured, so that a lull follows work, not a start.
 */
export async function afterLulls(floor: Target, stack: Target): Promise<LullRun[]> {
  // The machine idles LULL_SECONDS before every run; a pipeline's own processes idle longer, by
  // how the runs fall (the other's lull and load), and that was seen to weigh on both.
  const lastLoadEnded = new Map<LullRun['pipeline'], number>();
  for (const [pipeline, target] of [['floor', floor], ['stack', stack]] as const) {
    log(`lull: the ${pipeline} at ${SETTINGS.LULL_RATE} orders/s for ${SETTINGS.LULL_LOAD_SECONDS} s, unmeasured`);
    await paced(target, { rate: SETTINGS.LULL_RATE, seconds: SETTINGS.LULL_LOAD_SECONDS });
    lastLoadEnded.set(pipeline, Date.now());
  }
  const runs: LullRun[] = [];
  for (let round = 1; round <= LULL_ROUNDS; round += 1) {
    const pipelines = stackRanFirst(round) ? ([['stack', stack], ['floor', floor]] as const) : ([['floor', floor], ['stack', stack]] as const);
    for (const [pipeline, target] of pipelines) {
      log(`lull, round ${round} of ${LULL_ROUNDS}: ${SETTINGS.LULL_SECONDS} s with nothing to do, then the ${pipeline} at ${SETTINGS.LULL_RATE} orders/s`);
      await sleep(SETTINGS.LULL_SECONDS * 1000);
      const since = await dbNow(target.db);
      const ownIdleSeconds = Math.round((Date.now() - (lastLoadEnded.get(pipeline) ?? Date.now())) / 1000);
      const load = await paced(target, { rate: SETTINGS.LULL_RATE, seconds: SETTINGS.LULL_LOAD_SECONDS });
      lastLoadEnded.set(pipeline, Date.now());
      const decided = await decisions(target, since);
      runs.push({ round, pipeline, ownIdleSeconds, failed: load.failed, undecided: decided.undecided, seconds: await secondBySecond(target, since) });
    }
  }
  return runs;
}

/** Placed → decided of the orders placed in each second since `since`, the first second numbered 1. */
async function secondBySecond({ db, table }: Pick<Target, 'db' | 'table'>, since: Date): Promise<LullSecond[]> {
  const { rows } = await db.query<{ second: number; decided: number; latency: number[] }>(
    `select floor(extract(epoch from created_at - $1::timestamptz))::int + 1 as second,
            count(*)::int as decided,
            percentile_cont(array[0.5, 0.99]) within group (order by extract(epoch from updated_at - created_at) * 1000) as latency
       from ${table} where created_at >= $1 and status <> 'placed'
      group by 1 order by 1`,
    [since],
  );
  return rows.map((row) => ({ second: row.second, decided: row.decided, p50: round(row.latency[0]), p99: round(row.latency[1]) }));
}
