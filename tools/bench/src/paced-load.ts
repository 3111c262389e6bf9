// Open-loop load at a steady rate: request i is due at start + i/rate and leaves then, whether
// or not earlier answers came back. Written for the bench because autocannon's rate limit is
// not a rate: each connection sends its quota for a second back to back at the start of that
// second, so "100 orders/s" arrived as a burst of 100 once a second.
import * as http from 'node:http';
import { percentile } from './figures';
import { requestCount, sendEvenly } from './paced-schedule';

export type OnResponse = (status: number, body: string, headers: http.IncomingHttpHeaders) => void;

export interface PacedLoadOptions {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  /** Each request's body. */
  body: () => string;
  rate: number;
  durationSeconds: number;
  onResponse?: OnResponse;
}

export interface PacedLoadResult {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  ok: number;
  failed: number;
}

/** Latency is counted from when a request was due, so a generator that falls behind shows it. */
export async function pacedLoad({ url, method = 'POST', headers = {}, body, rate, durationSeconds, onResponse }: PacedLoadOptions): Promise<PacedLoadResult> {
  const target = new URL(url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1024 });
  const latencies: number[] = [];
  let ok = 0;
  let failed = 0;
  const send = (dueAt: number) =>
    new Promise<void>((resolve) => {
      const payload = body();
      const request = http.request(
        {
          agent,
          host: target.hostname,
          port: target.port,
          path: target.pathname + target.search,
          method,
          headers: { ...headers, 'content-length': Buffer.byteLength(payload) },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => {
            latencies.push(performance.now() - dueAt);
            const status = response.statusCode ?? 0;
            if (status >= 200 && status < 300) ok += 1;
            else failed += 1;
            onResponse?.(status, Buffer.concat(chunks).toString(), response.headers);
            resolve();
          });
        },
      );
      request.on('error', () => {
        failed += 1;
        resolve();
      });
      request.end(payload);
    });

  const startedAt = performance.now();
  await Promise.all(await sendEvenly(rate, requestCount(rate, durationSeconds), (_, dueAt) => send(dueAt)));
  const elapsed = (performance.now() - startedAt) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return { requestsPerSecond: (ok + failed) / elapsed, p50: percentile(latencies, 50), p99: percentile(latencies, 99), ok, failed };
}
