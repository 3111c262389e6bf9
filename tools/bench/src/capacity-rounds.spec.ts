import { capacityRatios } from './capacity-rounds';
import type { CapacityResult } from './results';

const run = (decidedPerSecond: number | null) => ({ decidedPerSecond }) as CapacityResult;

describe('capacity rounds', () => {
  it('pair the first round kept as runs before rounds kept it with the later ones, in the order they ran', () => {
    const ratios = capacityRatios({
      capacity: run(900),
      floorCapacity: run(1000),
      laterCapacityRounds: [
        { floor: run(1000), stack: run(1100) },
        { floor: run(800), stack: run(600) },
      ],
    });
    expect(ratios.each).toEqual([0.9, 1.1, 0.75]);
    expect(ratios.mean).toBe(0.92);
    expect(ratios.rounds.map(({ stack }) => stack.decidedPerSecond)).toEqual([900, 1100, 600]);
  });

  it('read a run before rounds as one round', () => {
    expect(capacityRatios({ capacity: run(850), floorCapacity: run(1000) })).toMatchObject({ each: [0.85], mean: 0.85 });
  });

  it('count a round without a figure as 0, so that it cannot lift the mean', () => {
    expect(capacityRatios({ capacity: run(1000), floorCapacity: run(1000), laterCapacityRounds: [{ floor: run(1000), stack: run(null) }] })).toMatchObject({ each: [1, null], mean: 0.5 });
  });

  it('have no rounds when either pipeline was not measured', () => {
    expect(capacityRatios({ capacity: run(900) })).toEqual({ rounds: [], each: [], mean: null });
    expect(capacityRatios({ floorCapacity: run(900) }).mean).toBeNull();
  });
});
