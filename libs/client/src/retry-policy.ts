/** How a failed attempt is followed by the next one. */
export interface RetryPolicy {
  /** Delay bound after the first failed attempt; it doubles with each further one. */
  initialMs: number;
  /** Upper bound of any one delay. */
  maxMs: number;
  /** The whole call, every attempt and wait included, ends this long after it started. */
  deadlineMs: number;
  /** One attempt that has not answered after this long is given up as a cut connection. */
  attemptTimeoutMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { initialMs: 100, maxMs: 2_000, deadlineMs: 30_000, attemptTimeoutMs: 10_000 };

/**
 * Delay after the given failed attempt (1-based): exponential and capped, with "equal jitter"
 * (half the bound, plus a random share of the other half), so that clients cut off together do
 * not come back together, and no delay is zero. (libs/backoff doubles the same way for the
 * services, without jitter; a published package imports nothing of the workspace.)
 */
export function retryDelay(failedAttempt: number, { initialMs, maxMs }: Pick<RetryPolicy, 'initialMs' | 'maxMs'>, random: () => number = Math.random): number {
  const bound = Math.min(maxMs, initialMs * 2 ** Math.max(0, failedAttempt - 1));
  return bound / 2 + random() * (bound / 2);
}

/**
 * `Retry-After` (RFC 9110 §10.2.3) in milliseconds from `now`: delay-seconds or an HTTP-date;
 * `undefined` when absent or unreadable, so the caller falls back to its own backoff.
 */
export function retryAfterMs(header: string | null | undefined, now: number = Date.now()): number | undefined {
  const value = header?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  // An HTTP-date names its day and month; Date.parse alone would take '-1' or '1.5' as dates.
  const at = /^[A-Za-z]{3}, /.test(value) ? Date.parse(value) : NaN;
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * The target of `Link: <…>; rel="next"` (RFC 8288) resolved against `base` (the reference may be
 * relative); `undefined` when there is none. `rel` may list several relation types.
 */
export function nextLink(header: string | null | undefined, base: string): URL | undefined {
  if (!header) return undefined;
  // Links are separated by commas outside `<…>` and quoted strings.
  for (const link of header.match(/<[^>]*>(?:[^,"]|"(?:[^"\\]|\\.)*")*/g) ?? []) {
    const [, target, parameters] = /^<([^>]*)>(.*)$/s.exec(link) ?? [];
    const rel = /;\s*rel\s*=\s*(?:"([^"]*)"|([^\s;,]+))/i.exec(parameters ?? '');
    const relations = (rel?.[1] ?? rel?.[2] ?? '').toLowerCase().split(/\s+/);
    if (target !== undefined && relations.includes('next')) return new URL(target, base);
  }
  return undefined;
}
