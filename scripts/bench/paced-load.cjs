// Open-loop load at a steady rate: request i is due at start + i/rate and leaves then, whether
// or not earlier answers came back. Written for the bench because autocannon's rate limit is
// not a rate: each connection sends its quota for a second back to back at the start of that
// second, so "100 orders/s" arrived as a burst of 100 once a second.
'use strict';
const http = require('node:http');
const { percentile } = require('./rpc-load.cjs');

/**
 * `body()` makes each request's body; `onResponse(status, text, headers)` sees each answer.
 * Latency is counted from when a request was due, so a generator that falls behind shows it.
 */
async function pacedLoad({ url, method = 'POST', headers = {}, body, rate, durationSeconds, onResponse }) {
  const target = new URL(url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1024 });
  const latencies = [];
  let ok = 0;
  let failed = 0;
  const send = (dueAt) =>
    new Promise((resolve) => {
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
          const chunks = [];
          response.on('data', (chunk) => chunks.push(chunk));
          response.on('end', () => {
            latencies.push(performance.now() - dueAt);
            if (response.statusCode >= 200 && response.statusCode < 300) ok += 1;
            else failed += 1;
            onResponse?.(response.statusCode, Buffer.concat(chunks).toString(), response.headers);
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
  const answers = [];
  const total = Math.round(rate * durationSeconds);
  for (let i = 0; i < total; i += 1) {
    const dueAt = startedAt + (i * 1000) / rate;
    const early = dueAt - performance.now();
    if (early >= 1) await new Promise((resolve) => setTimeout(resolve, early));
    answers.push(send(dueAt));
  }
  await Promise.all(answers);
  const elapsed = (performance.now() - startedAt) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return {
    requestsPerSecond: (ok + failed) / elapsed,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    ok,
    failed,
  };
}

module.exports = { pacedLoad };
