// On / off of the security section's figures, pure.
import { meanRatio, ratio } from './figures';

interface Run {
  mode: 'on' | 'off';
  reads: { name: string; gateway: { requestsPerSecond: number | null }; direct: { requestsPerSecond: number | null } }[];
  capacity: { decidedPerSecond: number | null };
}

export interface Ratio {
  each: (number | null)[];
  mean: number | null;
}

export interface SecurityRatios {
  sagaDecidedPerSecond: Ratio;
  reads: Record<string, { gateway: Ratio; direct: Ratio }>;
}

/**
 * The i-th "on" run against the i-th "off" one (runs next to each other), and their mean. Saga
 * decided/s; per read query, through the gateway and straight to the catalog.
 */
export function securityRatios(runs: Run[]): SecurityRatios {
  const on = runs.filter((r) => r.mode === 'on');
  const off = runs.filter((r) => r.mode === 'off');
  const pairs = on.slice(0, off.length).map((r, i) => [r, off[i]] as const);
  const onToOff = (figure: (run: Run) => number | null): Ratio => {
    const each = pairs.map(([a, b]) => ratio(figure(a), figure(b)));
    return { each, mean: meanRatio(each) };
  };
  const queries = on[0]?.reads.map((r) => r.name) ?? [];
  const read = (name: string, via: 'gateway' | 'direct') => (run: Run) => run.reads.find((r) => r.name === name)?.[via].requestsPerSecond ?? null;
  return {
    sagaDecidedPerSecond: onToOff((run) => run.capacity.decidedPerSecond),
    reads: Object.fromEntries(queries.map((name) => [name, { gateway: onToOff(read(name, 'gateway')), direct: onToOff(read(name, 'direct')) }])),
  };
}
