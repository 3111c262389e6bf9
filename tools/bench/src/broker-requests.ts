// The requests the Kafka brokers handled during a run, per decided order: how many fetches,
// follower fetches and produce requests a pipeline's orders cost its brokers, beside their CPU.
// Counted by the brokers, not the clients: a client sees only its own requests, and a broker's
// follower fetches come from the other brokers. A broker keeps these counters only in JMX, which
// tools/bench/java/BrokerRequestCounts.java reads by attaching to each broker's JVM.
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { ROOT } from '@petstore/stack';
import { log, round } from './figures';
import { brokerPids } from './proc-cpu';

/** Requests handled so far by request type, as the brokers name them, summed over the brokers. */
export type RequestCounts = Record<string, number>;

const READER = path.join(ROOT, 'tools/bench/java/BrokerRequestCounts.java');

/** The request types the report names; every other type is summed under `other`. */
const NAMED: Record<string, string> = { FetchConsumer: 'consumer fetch', FetchFollower: 'follower fetch', Produce: 'produce', OffsetCommit: 'offset commit', Heartbeat: 'heartbeat' };

/**
 * Requests per decided order between two readings, by the report's names, `other` last; a kind
 * none of which were made is left out (a single broker has no followers). `Fetch` is left out
 * too: a broker counts every fetch under it and again as a consumer's or a follower's.
 */
export function requestsPerOrder(before: RequestCounts, after: RequestCounts, decided: number): Record<string, number> | undefined {
  if (decided <= 0) return undefined;
  const made: Record<string, number> = Object.fromEntries([...Object.values(NAMED), 'other'].map((part) => [part, 0]));
  for (const [request, count] of Object.entries(after)) {
    if (request === 'Fetch') continue;
    made[NAMED[request] ?? 'other'] += count - (before[request] ?? 0);
  }
  return Object.fromEntries(Object.entries(made).flatMap(([part, count]) => (count > 0 ? [[part, round(count / decided, 2) ?? 0]] : [])));
}

let unreadable = false;

/** Every running broker's request counts, or undefined (said once) when they cannot be read. */
function brokerRequestCounts(): RequestCounts | undefined {
  const pids = brokerPids();
  if (unreadable || pids.length === 0) return undefined;
  const reader = spawnSync('java', [READER, ...pids], { encoding: 'utf8', timeout: 60_000 });
  if (reader.status === 0) return JSON.parse(reader.stdout) as RequestCounts;
  unreadable = true;
  log(`the brokers' request counts could not be read, so the report leaves them out: ${(reader.stderr || reader.error?.message || '').trim().split('\n')[0]}`);
  return undefined;
}

/** `run`'s result with the brokers' requests per decided order while it ran. */
export async function withBrokerRequests<T extends { decided: number }>(run: () => Promise<T>): Promise<T & { brokerRequestsPerOrder?: Record<string, number> }> {
  const before = brokerRequestCounts();
  const result = await run();
  const after = before && brokerRequestCounts();
  const perOrder = before && after && requestsPerOrder(before, after, result.decided);
  return perOrder ? { ...result, brokerRequestsPerOrder: perOrder } : result;
}
