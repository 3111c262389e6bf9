// Closed-loop load over the catalog's own RPC transport (the stack's RPC_TRANSPORT): what the
// gateway adds is the difference between this and the same query through HTTP.
'use strict';
const { ClientProxyFactory, Transport } = require('@nestjs/microservices');
const { firstValueFrom } = require('rxjs');

function percentile(sorted, p) {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** Over NATS the request goes to `<NATS_SUBJECT_PREFIX><service>.<cmd>` (libs/rpc), as the gateway sends it. */
async function rpcLoad({ env, service, pattern, payload, connections, durationSeconds }) {
  const nats = (env.RPC_TRANSPORT ?? 'nats') === 'nats';
  const client = nats
    ? ClientProxyFactory.create({ transport: Transport.NATS, options: { servers: env.NATS_SERVERS.split(',') } })
    : ClientProxyFactory.create({ transport: Transport.TCP, options: { host: '127.0.0.1', port: Number(env.RPC_PORT) } });
  const target = nats ? `${env.NATS_SUBJECT_PREFIX}${service}.${pattern.cmd}` : pattern;
  await client.connect();
  const latencies = [];
  let errors = 0;
  const deadline = Date.now() + durationSeconds * 1000;
  const worker = async () => {
    while (Date.now() < deadline) {
      const started = process.hrtime.bigint();
      try {
        await firstValueFrom(client.send(target, payload()));
        latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
      } catch {
        errors += 1;
      }
    }
  };
  const startedAt = Date.now();
  await Promise.all(Array.from({ length: connections }, worker));
  const elapsed = (Date.now() - startedAt) / 1000;
  await client.close();
  latencies.sort((a, b) => a - b);
  return {
    requestsPerSecond: latencies.length / elapsed,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    errors,
  };
}

module.exports = { rpcLoad, percentile };
