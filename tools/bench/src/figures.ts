// Small pieces every part of the bench shares: rounding, percentiles, waiting, its log line.

/** `value` to `digits` decimals; null when there is no figure. */
export function round(value: number | null | undefined, digits = 1): number | null {
  return value === null || value === undefined ? null : Number(Number(value).toFixed(digits));
}

/** `a / b` to two decimals, as every ratio of the report is shown. */
export function ratio(a: number | null | undefined, b: number | null | undefined): number | null {
  return round((a ?? 0) / (b ?? 0), 2);
}

/** The mean of `values` to `digits` decimals; null for none. */
export function meanOf(values: readonly number[], digits = 1): number | null {
  return values.length > 0 ? round(values.reduce((sum, x) => sum + x, 0) / values.length, digits) : null;
}

/** The mean of ratios taken next to each other, shown as a ratio is (a missing one counts 0); null when there are none. */
export function meanRatio(each: readonly (number | null)[]): number | null {
  return meanOf(each.map((x) => x ?? 0), 2);
}

/** The p-th percentile of ascending `sorted` (nearest rank, rounded down); 0 for no samples. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** The middle of `values` (the mean of the two middle ones for an even count), in any order. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** Each process's share of one core (%) from CPU seconds used over `seconds`. */
export function shareOfCore(cpuSeconds: number, seconds: number): number | null {
  return round((cpuSeconds / seconds) * 100, 2);
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export const log = (message: string): void => console.log(`[bench] ${message}`);
