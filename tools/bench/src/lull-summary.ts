// What the lull section's seconds say, pure: each run's first seconds against its steady ones.
import { median, meanOf, ratio, round } from './figures';
import type { LullRun, LullSecond } from './results';

/** The seconds a run counts as steady: from its fifth on, as the pipelines had settled by then in every lull measured by hand. */
export const STEADY_FROM_SECOND = 5;

export interface LullSummary {
  round: number;
  pipeline: LullRun['pipeline'];
  /** The first three seconds, as measured (undefined for a second with no order). */
  firstSeconds: (LullSecond | undefined)[];
  /** The median of the steady seconds' p50 and of their p99. */
  steadyP50: number | null;
  steadyP99: number | null;
  /** The first second's p50 over the steady seconds' median p50. */
  firstToSteady: number | null;
}

/**
 * `run`'s first three seconds and its steady ones. A second with under half of the run's most
 * orders in a second (the load's last, cut short) is not counted as steady.
 */
export function lullSummary(run: LullRun): LullSummary {
  const bySecond = new Map(run.seconds.map((s) => [s.second, s]));
  const halfOfFullest = Math.max(0, ...run.seconds.map((s) => s.decided)) / 2;
  const steady = run.seconds.filter((s) => s.second >= STEADY_FROM_SECOND && s.decided >= halfOfFullest);
  const steadyP50 = medianOrNull(steady.map((s) => s.p50));
  const steadyP99 = medianOrNull(steady.map((s) => s.p99));
  const first = bySecond.get(1);
  return {
    round: run.round,
    pipeline: run.pipeline,
    firstSeconds: [1, 2, 3].map((second) => bySecond.get(second)),
    steadyP50,
    steadyP99,
    firstToSteady: first?.p50 && steadyP50 ? ratio(first.p50, steadyP50) : null,
  };
}

function medianOrNull(values: readonly (number | null)[]): number | null {
  const known = values.filter((value): value is number => value !== null);
  return known.length > 0 ? round(median(known)) : null;
}

/** Each pipeline's mean first-to-steady ratio over its runs. */
export function meanFirstToSteady(summaries: readonly LullSummary[], pipeline: LullRun['pipeline']): number | null {
  const each = summaries.filter((s) => s.pipeline === pipeline && s.firstToSteady !== null).map((s) => s.firstToSteady as number);
  return meanOf(each, 2);
}
