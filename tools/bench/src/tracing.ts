// BENCH_ONLY=tracing: what exporting spans costs the saga, every trace and the chart's share of them, in rounds.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ROOT, startOtlpReceiver, type OtlpReceiver } from '@petstore/stack';
import { parse } from 'yaml';
import type { BenchStack } from './bench-stack';
import { log, ratio, round, sleep } from './figures';
import { TRACING_ROUNDS } from './knobs';
import { capacity } from './measure';
import type { CapacityResult, TracingRound, TracingRounds, TracingRun } from './results';
import type { Target } from './target';
import { runOrder, summarizeRounds } from './tracing-rounds';

/** The share of new traces a deployment of the chart keeps unless told otherwise (`tracing.samplerRatio`). */
function chartSamplerRatio(): number {
  const values = parse(fs.readFileSync(path.join(ROOT, 'deploy/helm/petstore/values.yaml'), 'utf8')) as { tracing: { samplerRatio: number } };
  return Number(values.tracing.samplerRatio);
}

/** Capacity on a stack restarted to export over OTLP/HTTP to `receiver`, keeping `ratio` of new traces. */
async function capacityTraced(stack: BenchStack, target: Target, receiver: OtlpReceiver, ratio: number) {
  receiver.clear();
  await stack.restart(stack.layout, {
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
    OTEL_TRACES_SAMPLER_ARG: String(ratio),
  });
  const on = await capacity({ ...target, processes: stack.processes });
  await sleep(6_000); // the last batches leave on the exporters' schedule
  return { on, spansReceived: receiver.count(), spansPerOrder: round(receiver.count() / Math.max(1, on.placed), 1) };
}

type Traced = Awaited<ReturnType<typeof capacityTraced>>;

const onToOff = (on: CapacityResult, off: CapacityResult) => ratio(on.decidedPerSecond, off.decidedPerSecond);

/**
 * Rounds (BENCH_TRACING_ROUNDS) of capacity without tracing, exporting every span over
 * OTLP/HTTP (SDK defaults: batches of 512, 5 s delay, queue 2048) to a receiver in this process
 * that counts them from the protobuf's framing, and keeping the chart's share of new traces, in
 * that order in odd rounds and in reverse in even ones (`runOrder`).
 * Each run starts on a freshly restarted stack, off too, so that no run meets processes warmer
 * than the others; the rounds show how far the host drifts between runs minutes apart, and the
 * targets read the means of their on / off. The collector runs outside the store (the chart's
 * `tracing.otlpEndpoint`), so its decoding is not the store's cost, and decoding here took the
 * stack's cores from it.
 */
export async function tracingCost(stack: BenchStack, target: Target): Promise<TracingRounds> {
  const receiver = await startOtlpReceiver({ keepSpans: false });
  const share = chartSamplerRatio();
  const rounds: TracingRound[] = [];
  try {
    const runs: TracingRun[] = share < 1 ? ['off', 'every', 'sampled'] : ['off', 'every'];
    const names: Record<TracingRun, string> = { off: 'off', every: 'every trace', sampled: `${share} of new traces` };
    for (let n = 1; n <= TRACING_ROUNDS; n++) {
      const order = runOrder(runs, n);
      log(`tracing, round ${n} of ${TRACING_ROUNDS}: ${order.map((run) => names[run]).join(', ')}`);
      let off: CapacityResult | undefined;
      let every: Traced | undefined;
      let sampled: Traced | undefined;
      for (const run of order) {
        if (run === 'off') {
          await stack.restart(stack.layout);
          off = await capacity({ ...target, processes: stack.processes });
        } else if (run === 'every') every = await capacityTraced(stack, target, receiver, 1);
        else sampled = await capacityTraced(stack, target, receiver, share);
      }
      if (!off || !every) throw new Error('a tracing round ran without its off or every-trace run');
      rounds.push({
        off,
        ...every,
        onToOff: onToOff(every.on, off),
        ...(sampled && { sampled: { ratio: share, ...sampled, onToOff: onToOff(sampled.on, off) } }),
        order,
      });
    }
  } finally {
    await receiver.close();
  }
  return summarizeRounds(rounds);
}
