import Fastify, { type FastifyInstance } from 'fastify';
import { collectDefaultMetrics, Histogram, register, type Metric } from 'prom-client';

/**
 * A metric of the process's one registry (prom-client's default, served on GET /metrics),
 * created the first time it is asked for: tests start several services in one process.
 */
export function processMetric<M extends Metric>(name: string, create: (name: string) => M): M {
  return (register.getSingleMetric(name) as M | undefined) ?? create(name);
}

/**
 * A database read behind gauges. The part of the process that can read it says so with
 * `answerWith` (the last one started, in a test process that starts several services); the
 * gauges' `collect` calls `read`, which queries at most once per `maxAgeMs`: the gauges of one
 * scrape, and scrapes close together (several Prometheus servers), share one query. No source
 * or a failed read answers undefined, so the gauges keep their last value (the health check
 * says why).
 */
export class ScrapedRead<T> {
  private source?: () => Promise<T>;
  private last?: { at: number; value: Promise<T | undefined> };

  constructor(private readonly maxAgeMs = 1000) {}

  answerWith(source: (() => Promise<T>) | undefined): void {
    this.source = source;
    this.last = undefined;
  }

  read(): Promise<T | undefined> {
    if (!this.last || Date.now() - this.last.at > this.maxAgeMs) {
      const source = this.source;
      this.last = { at: Date.now(), value: source ? source().catch(() => undefined) : Promise.resolve(undefined) };
    }
    return this.last.value;
  }
}

/** From a millisecond to ten seconds: a cached read to a call that times out. */
export const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * Gauges prom-client names like counters, which Prometheus's lint (promtool) refuses; each is the
 * sum of a gauge it also exports by type (`nodejs_active_handles{type}`, …), so nothing is lost.
 */
const MISNAMED_DEFAULT_GAUGES = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];

/** prom-client's process and Node.js metrics (CPU, memory, event loop lag, GC), registered once per process. */
export function collectProcessMetrics(): void {
  if (register.getSingleMetric('process_cpu_seconds_total')) return;
  // The event loop is sampled ten times a second, not prom-client's hundred: each sample wakes
  // an idle process, and the lag it reports needs no finer grain than a scrape's.
  collectDefaultMetrics({ eventLoopMonitoringPrecision: 100 });
  for (const name of MISNAMED_DEFAULT_GAUGES) register.removeSingleMetric(name);
}

/** `GET /metrics` on `app`: every metric of the process in Prometheus's text format. */
export function registerMetricsRoute(app: FastifyInstance): void {
  collectProcessMetrics();
  app.get('/metrics', async (_request, reply) => reply.type(register.contentType).send(await register.metrics()));
}

/**
 * A listener of its own for `GET /metrics`, for a process whose HTTP port is public (the
 * gateway): Prometheus scrapes it on a port that is never published.
 */
export async function serveMetrics(port: number, host: string): Promise<FastifyInstance> {
  const app = Fastify({ logger: false });
  registerMetricsRoute(app);
  await app.listen({ port, host });
  return app;
}

export const rpcServerSeconds = processMetric(
  'petstore_rpc_server_duration_seconds',
  (name) =>
    new Histogram({
      name,
      help: 'Time a service took to answer an RPC request, by pattern and status (ok or the error code)',
      labelNames: ['pattern', 'status'],
      buckets: LATENCY_BUCKETS,
    }),
);

export const rpcClientSeconds = processMetric(
  'petstore_rpc_client_duration_seconds',
  (name) =>
    new Histogram({
      name,
      help: 'Time the gateway waited for a service to answer an RPC request, by pattern and status (ok or the error code)',
      labelNames: ['pattern', 'status'],
      buckets: LATENCY_BUCKETS,
    }),
);

/** The status label of an RPC that failed: its error code (`NOT_FOUND`, `UPSTREAM_TIMEOUT`, …). */
export function rpcStatusOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[A-Z_]{1,64}$/.test(code) ? code : 'INTERNAL_ERROR';
}

/** Times an RPC call into petstore_rpc_client_duration_seconds; resolves or rejects as `call` does. */
export function timeRpcCall<T>(pattern: string, call: Promise<T>): Promise<T> {
  const end = rpcClientSeconds.startTimer({ pattern });
  call.then(
    () => end({ status: 'ok' }),
    (error: unknown) => end({ status: rpcStatusOf(error) }),
  );
  return call;
}
