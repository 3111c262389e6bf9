// BENCH_ONLY=tracing: what exporting every span costs the saga.
import { startOtlpReceiver } from '@petstore/stack';
import type { BenchStack } from './bench-stack';
import { round, sleep } from './figures';
import { capacity } from './measure';
import type { Target } from './target';

/**
 * Capacity without tracing, then the same on a stack restarted to export every span over
 * OTLP/HTTP (SDK defaults: batches of 512, 5 s delay, queue 2048) to a receiver in this
 * process that parses and counts them, as a local collector would: the ratio is what tracing costs.
 */
export async function tracingCost(stack: BenchStack, target: Target) {
  const off = await capacity(target);
  const receiver = await startOtlpReceiver({ keepSpans: false });
  try {
    await stack.restart(stack.layout, { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
    const on = await capacity({ ...target, processes: stack.processes });
    await sleep(6_000); // the last batches leave on the exporters' schedule
    return {
      off,
      on,
      spansReceived: receiver.count(),
      spansPerOrder: round(receiver.count() / Math.max(1, on.placed), 1),
      onToOff: round((on.decidedPerSecond ?? 0) / (off.decidedPerSecond ?? 0), 2),
    };
  } finally {
    await receiver.close();
  }
}
