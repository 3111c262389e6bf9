// BENCH_SOAK_MINUTES=<n>: a steady rate for minutes, a run of its own (BENCH_ONLY=soak).
import type { Layout } from './bench-kafka';
import { messagingTables } from './database-figures';
import { log } from './figures';
import { SETTINGS } from './knobs';
import { atRate } from './measure';
import type { Target } from './target';

/** Latency per minute, and the messaging tables at the start and the end. */
export async function soak(target: Target, layout: Layout) {
  const tablesAtStart = await messagingTables(layout);
  const minutes = [];
  for (let minute = 1; minute <= SETTINGS.SOAK_MINUTES; minute += 1) {
    const result = await atRate(target, SETTINGS.SOAK_RATE, 60);
    minutes.push({ minute, ...result });
    log(`soak minute ${minute}: p50 ${result.decisionP50} ms, p99 ${result.decisionP99} ms`);
  }
  const tablesAtEnd = await messagingTables(layout);
  return { rate: SETTINGS.SOAK_RATE, minutes, tablesAtStart, tablesAtEnd };
}
