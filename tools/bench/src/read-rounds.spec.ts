import type { ReadResult } from './read-path';
import { readRatios } from './read-rounds';

const read = (name: string, gatewayToFloor: number | null, round?: number) =>
  ({ name, gatewayToFloor, ...(round !== undefined && { round }) }) as ReadResult;

describe("the read path's rounds", () => {
  it("take each query's mean gateway / floor over the rounds, queries in the order they ran", () => {
    const reads = [read('categories', 0.39, 1), read('pets', 0.56, 1), read('categories', 0.57, 2), read('pets', 0.36, 2)];
    expect(readRatios(reads)).toEqual([
      { name: 'categories', each: [0.39, 0.57], mean: 0.48 },
      { name: 'pets', each: [0.56, 0.36], mean: 0.46 },
    ]);
  });

  it('read a run from before rounds as one round', () => {
    expect(readRatios([read('categories', 0.52), read('pets', 0.62)])).toEqual([
      { name: 'categories', each: [0.52], mean: 0.52 },
      { name: 'pets', each: [0.62], mean: 0.62 },
    ]);
  });

  it('count a round without a figure as none, so that it cannot lift the mean', () => {
    expect(readRatios([read('pets', 0.6, 1), read('pets', null, 2)])).toEqual([{ name: 'pets', each: [0.6, null], mean: 0.3 }]);
  });
});
