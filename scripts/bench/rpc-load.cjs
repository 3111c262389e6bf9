// Closed-loop load over the catalog's own TCP transport: what the gateway adds is the
// difference between this and the same query through HTTP.
'use strict';
const { ClientProxyFactory, Transport } = require('@nestjs/microservices');
const { firstValueFrom } = require('rxjs');

function percentile(sorted, p) {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function rpcLoad({ host, port, pattern, payload, connections, durationSeconds }) {
  const client = ClientProxyFactory.create({ transport: Transport.TCP, options: { host, port } });
  await client.connect();
  const latencies = [];
  let errors = 0;
  const deadline = Date.now() + durationSeconds * 1000;
  const worker = async () => {
    while (Date.now() < deadline) {
      const started = process.hrtime.bigint();
      try {
        await firstValueFrom(client.send(pattern, payload()));
        latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
      } catch {
        errors += 1;
      }
    }
  };
  const startedAt = Date.now();
  await Promise.all(Array.from({ length: connections }, worker));
  const elapsed = (Date.now() - startedAt) / 1000;
  client.close();
  latencies.sort((a, b) => a - b);
  return {
    requestsPerSecond: latencies.length / elapsed,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    errors,
  };
}

module.exports = { rpcLoad, percentile };
