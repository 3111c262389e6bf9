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
