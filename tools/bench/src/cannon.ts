// Closed-loop HTTP load through autocannon, with the CPU each part of the machine spent per request.
import autocannon = require('autocannon');
import { cpuSpent, cpuUsPerRequest } from './cpu-accounting';
import { round } from './figures';
import { SETTINGS } from './knobs';
import { cpuSnapshot, type Processes } from './proc-cpu';
import type { OrderRequest } from './target';

export interface CannonOptions {
  url: string;
  headers?: Record<string, string>;
  duration?: number;
  connections?: number;
  requests?: OrderRequest[];
  /** A 3 s unmeasured run first. */
  warmup?: boolean;
  /** The processes whose CPU per request (µs) to report, beside PostgreSQL, Kafka, NATS and this one. */
  cpuOf?: Processes;
}

export interface CannonResult {
  cpuUsPerRequest?: Record<string, number>;
  requestsPerSecond: number | null;
  p50: number;
  p99: number;
  ok: number;
  failed: number;
}

export async function cannon({ url, headers = {}, duration = SETTINGS.READ_SECONDS, connections = SETTINGS.CONNECTIONS, requests, warmup = false, cpuOf }: CannonOptions): Promise<CannonResult> {
  const options = { url, headers, connections, duration, requests: requests as autocannon.Request[] | undefined, pipelining: 1 };
  if (warmup) await autocannon({ ...options, duration: 3 });
  const before = cpuOf && cpuSnapshot(cpuOf);
  const result = await autocannon(options);
  const spent = cpuOf && before && cpuSpent(before, cpuSnapshot(cpuOf));
  return {
    ...(spent && { cpuUsPerRequest: cpuUsPerRequest(spent, result.requests.total) }),
    requestsPerSecond: round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    ok: result['2xx'],
    failed: result.non2xx + result.errors + result.timeouts,
  };
}
