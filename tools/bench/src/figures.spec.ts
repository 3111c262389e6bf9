import { median, percentile, round, shareOfCore } from './figures';

describe('percentile', () => {
  const ten = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];

  it('takes the nearest rank below of an ascending list', () => {
    expect(percentile(ten, 50)).toBe(6);
    expect(percentile(ten, 90)).toBe(10);
    expect(percentile(ten, 99)).toBe(10);
    expect(percentile(ten, 0)).toBe(1);
    expect(percentile([5, 7, 100, 250], 50)).toBe(100);
    expect(percentile([5, 7, 100, 250], 25)).toBe(7);
  });

  it('stays within the list at p100 and answers 0 for no samples', () => {
    expect(percentile(ten, 100)).toBe(10);
    expect(percentile([42], 99)).toBe(42);
    expect(percentile([], 50)).toBe(0);
    expect(percentile([], 99)).toBe(0);
  });
});

describe('round', () => {
  it('rounds to the digits asked, one by default, and keeps no figure as null', () => {
    expect(round(12.345)).toBe(12.3);
    expect(round(12.345, 2)).toBe(12.35);
    expect(round(0.004, 2)).toBe(0);
    expect(round(null)).toBeNull();
    expect(round(undefined)).toBeNull();
  });

  it('gives a share of one core in percent', () => {
    expect(shareOfCore(0.6, 60)).toBe(1);
    expect(shareOfCore(30, 60)).toBe(50);
  });
});

describe('median', () => {
  it('reads the median of the rounds, odd or even in number, whatever their order', () => {
    expect(median([9, 1, 5])).toBe(5);
    expect(median([130, 120, 400, 125])).toBe(127.5);
    expect(median([42])).toBe(42);
  });
});
