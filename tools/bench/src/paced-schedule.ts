// When each request of an open-loop run leaves: evenly spaced, whatever the answers do.

/** How many requests a run at `rate` a second for `seconds` sends. */
export function requestCount(rate: number, seconds: number): number {
  return Math.round(rate * seconds);
}

/** Request `i` is due `i / rate` seconds after the start (ms). */
export function dueAfterMs(i: number, rate: number): number {
  return (i * 1000) / rate;
}

/** How long to wait before sending a request due at `dueAt` (ms) at `now`; 0 when it is due within `slackMs`. */
export function waitBefore(dueAt: number, now: number, slackMs = 1): number {
  const early = dueAt - now;
  return early >= slackMs ? early : 0;
}

/**
 * Calls `send` `count` times at `rate` a second, each call when it is due (`dueAt` on
 * `performance.now()`'s clock), whatever earlier calls do; returns what each call returned once
 * the last is sent, for the caller to await.
 */
export async function sendEvenly<T>(rate: number, count: number, send: (i: number, dueAt: number) => T): Promise<T[]> {
  const startedAt = performance.now();
  const sent: T[] = [];
  for (let i = 0; i < count; i += 1) {
    const dueAt = startedAt + dueAfterMs(i, rate);
    const wait = waitBefore(dueAt, performance.now());
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    sent.push(send(i, dueAt));
  }
  return sent;
}
