// BENCH_ONLY=security: what the bus's authentication and TLS cost the read path and the saga.
import { ensureRedis, kafka, provisionKafka, redisServer, stackLayout, stopNatsServer, stopRedisServer } from '@petstore/stack';
import { BENCH_ENV, type BenchStack, withEnv } from './bench-stack';
import { log } from './figures';
import { SECURED_REDIS_PORT, SECURITY, SECURITY_TARGET, UNSECURED_BUS } from './knobs';
import { capacity } from './measure';
import { securityRatios } from './security-ratios';
import type { Target } from './target';
import { readsAndCapacity } from './transports';

/**
 * The read path and saga capacity with the bus's authentication and TLS on (the stack as it
 * always runs: Kafka SASL_SSL/SCRAM with ACLs, NATS with TLS and a user per process, the rate
 * limit's Redis with TLS and an ACL user), then off (a plaintext broker, a NATS server and a
 * Redis that check nothing), in turn (BENCH_SECURITY), so that drift shows; both halves count
 * the rate limit in Redis (a quota no run reaches), as the scaled stack does. The first start of
 * each half gets an unmeasured capacity run: the plaintext broker is new, its JIT still cold.
 */
export async function securityCost(stack: BenchStack, category: { id: number }, target: Target) {
  const securedRedis = redisServer(SECURED_REDIS_PORT);
  const unsecuredRedis = redisServer(UNSECURED_BUS.redisPort, { unsecured: true });
  const gatewayWith = (redis: typeof securedRedis) => (app: string) => (app === 'gateway' ? { ...redis.gatewayEnv, RATE_LIMIT_PER_SECOND: '1000000' } : {});
  const unsecuredLayout = stackLayout({
    offset: 20_000,
    databaseSuffix: '_bench',
    namespace: stack.namespace,
    kafkaBrokers: `127.0.0.1:${UNSECURED_BUS.kafka.port}`,
    natsPort: UNSECURED_BUS.natsPort,
    unsecured: true,
  });
  const layouts = { on: withEnv(stack.layout, gatewayWith(securedRedis)), off: withEnv(unsecuredLayout, gatewayWith(unsecuredRedis)) };
  log('bus security: starting the unsecured broker, NATS server and Redis');
  // A fresh broker each run, as the cluster section's: old runs' topics would slow its fetches.
  kafka('reset', UNSECURED_BUS.kafka);
  kafka('start', UNSECURED_BUS.kafka);
  const runs = [];
  try {
    await ensureRedis(securedRedis);
    await ensureRedis(unsecuredRedis);
    await provisionKafka(layouts.off, BENCH_ENV);
    const warmed = new Set<string>();
    for (const mode of SECURITY) {
      log(`bus security ${mode}: read path and saga capacity`);
      await stack.restart(layouts[mode]);
      if (!warmed.has(mode)) {
        warmed.add(mode);
        await capacity({ ...target, processes: stack.processes });
      }
      runs.push({ mode, ...(await readsAndCapacity(stack, layouts[mode], category, target)) });
    }
  } finally {
    // Nothing of the unsecured bus outlives the section.
    await stack.stop();
    kafka('stop', UNSECURED_BUS.kafka);
    await stopNatsServer(layouts.off.nats);
    await stopRedisServer(unsecuredRedis);
  }
  return { runs, onToOff: securityRatios(runs), target: SECURITY_TARGET };
}
