import { ConfigError, type Env } from './config';

/**
 * Authentication and TLS on the bus (Kafka, NATS, the rate limit's Redis) are always on. This
 * variable lets a process connect without them, and serves one purpose only: the benchmark that
 * measures what they cost (`npm run bench`, section `security`), on one machine, beside brokers
 * started for it that admit anyone. Everywhere else a connection without them is refused.
 */
export const BUS_SECURITY_OFF_BENCH_ONLY = 'BUS_SECURITY_OFF_BENCH_ONLY';

/** Whether this process may connect to the bus without authentication and TLS (benchmarks only). */
export function busSecurityOff(env: Env): boolean {
  return env[BUS_SECURITY_OFF_BENCH_ONLY]?.trim() === 'true';
}

/**
 * Refuses, naming `variable`, a connection that `missing` describes (no user, no TLS), unless the
 * benchmark of the bus's security says it measures exactly that.
 */
export function refuseUnsecuredBus(env: Env, variable: string, missing: string): void {
  if (busSecurityOff(env)) return;
  throw new ConfigError(variable, `${missing}: the bus is always authenticated and encrypted (${BUS_SECURITY_OFF_BENCH_ONLY}=true serves only the benchmark of what that costs)`);
}
