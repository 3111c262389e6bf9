export interface Backoff {
  /** Delay before the second attempt. */
  initialMs: number;
  /** Upper bound of any delay. */
  maxMs: number;
}

/** Delay after the given failed attempt (1-based): initial, doubled each time, capped. */
export function backoffDelay(failedAttempt: number, { initialMs, maxMs }: Backoff): number {
  return Math.min(maxMs, initialMs * 2 ** Math.max(0, failedAttempt - 1));
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
