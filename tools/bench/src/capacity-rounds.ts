// Saga capacity in rounds, each the floor's run and the stack's at once after it, and the mean of
// the rounds' stack / floor, pure.
import { meanRatio, ratio } from './figures';
import type { CapacityResult } from './results';

export interface CapacityRound {
  floor: CapacityResult;
  stack: CapacityResult;
}

/** Where a run keeps its capacity figures: the first round in `floorCapacity` and `capacity`, as runs before rounds kept their one. */
export interface CapacityRuns {
  capacity?: CapacityResult;
  floorCapacity?: CapacityResult;
  laterCapacityRounds?: CapacityRound[];
}

export interface CapacityRatios {
  rounds: CapacityRound[];
  /** Stack / floor of each round, in the order the rounds ran. */
  each: (number | null)[];
  mean: number | null;
}

/** Every round with both runs, and the mean of their stack / floor; no rounds when either pipeline was not measured. */
export function capacityRatios({ capacity, floorCapacity, laterCapacityRounds = [] }: CapacityRuns): CapacityRatios {
  const rounds = capacity && floorCapacity ? [{ floor: floorCapacity, stack: capacity }, ...laterCapacityRounds] : [];
  const each = rounds.map(({ floor, stack }) => (floor.decidedPerSecond && stack.decidedPerSecond ? ratio(stack.decidedPerSecond, floor.decidedPerSecond) : null));
  return { rounds, each, mean: meanRatio(each) };
}
