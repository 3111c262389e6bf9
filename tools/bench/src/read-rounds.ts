// The read path's rounds and the mean of each query's gateway / floor, pure.
import { meanRatio } from './figures';
import type { ReadResult } from './read-path';

export interface ReadRatios {
  name: string;
  /** Gateway / floor of each round, in the order the rounds ran. */
  each: (number | null)[];
  mean: number | null;
}

/** Each query's gateway / floor over the rounds, in the order the queries ran; a run before rounds is one round. */
export function readRatios(reads: readonly ReadResult[]): ReadRatios[] {
  const byName = new Map<string, (number | null)[]>();
  for (const read of reads) {
    const each = byName.get(read.name) ?? [];
    each.push(read.gatewayToFloor);
    byName.set(read.name, each);
  }
  return [...byName].map(([name, each]) => ({ name, each, mean: meanRatio(each) }));
}
