// How the RPC requests spread over a tier's replicas, from each replica's own metrics.
import { round } from './figures';

export type Spread = Record<string, { total: number; shares: Record<string, number | null> }>;

/** RPC requests served so far, from a replica's Prometheus text (petstore_rpc_server_duration_seconds_count). */
export function rpcServedOf(metrics: string): number {
  return metrics
    .split('\n')
    .filter((line) => line.startsWith('petstore_rpc_server_duration_seconds_count'))
    .reduce((sum, line) => sum + Number(line.split(' ').pop()), 0);
}

/** RPC requests each replica (`layout.services`) has served so far. */
export async function rpcServed(layout: { services: string[]; metricsUrlOf: (name: string) => string }): Promise<Record<string, number>> {
  const served: Record<string, number> = {};
  for (const name of layout.services) {
    const text = await fetch(`${layout.metricsUrlOf(name)}/metrics`).then(
      (r) => r.text(),
      () => '',
    );
    served[name] = rpcServedOf(text);
  }
  return served;
}

/** Each service's RPC requests between two readings, as the share each replica (`<tier>-<n>`) served. */
export function spreadOf(before: Record<string, number>, after: Record<string, number>): Spread {
  const byTier: Record<string, Record<string, number>> = {};
  for (const name of Object.keys(after)) {
    const tier = name.split('-')[0];
    (byTier[tier] ??= {})[name] = after[name] - (before[name] ?? 0);
  }
  return Object.fromEntries(
    Object.entries(byTier).map(([tier, counts]) => {
      const total = Object.values(counts).reduce((sum, n) => sum + n, 0);
      return [tier, { total, shares: Object.fromEntries(Object.entries(counts).map(([name, n]) => [name, total ? round(n / total, 2) : null])) }];
    }),
  );
}
