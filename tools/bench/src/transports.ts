// BENCH_ONLY=transports: the read path and saga capacity on a stack restarted with each RPC
// transport in turn; and the pair of figures the security section takes the same way.
import { type BenchStack, withEnv } from './bench-stack';
import type { Layout } from './bench-kafka';
import { log } from './figures';
import { TRANSPORTS } from './knobs';
import { capacity } from './measure';
import { readPath } from './read-path';
import type { Target } from './target';

/** The read path of `category` and the saga's capacity through `target`, on the running stack, laid out as `layout`. */
export async function readsAndCapacity(stack: BenchStack, layout: Layout, category: { id: number }, target: Target) {
  const reads = await readPath(layout, category, stack.processes);
  return { reads, capacity: await capacity({ ...target, processes: stack.processes }) };
}

export async function transportRuns(stack: BenchStack, category: { id: number }, target: Target) {
  const runs = [];
  for (const transport of TRANSPORTS) {
    log(`RPC over ${transport}: read path and saga capacity`);
    // The TCP transport has no authentication: it starts only when told it serves a benchmark.
    const layout = withEnv(stack.layout, () => ({ RPC_TRANSPORT: transport, RPC_TCP_BENCH_ONLY: 'true' }));
    await stack.restart(layout);
    runs.push({ transport, ...(await readsAndCapacity(stack, layout, category, target)) });
  }
  return runs;
}
