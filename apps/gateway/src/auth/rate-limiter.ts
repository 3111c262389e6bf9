/**
 * A fixed one-second window per API key. The number of keys is bounded by the configuration,
 * so the map never grows with traffic. Counts are per gateway process.
 */
export class RateLimiter {
  private readonly windows = new Map<string, { startedAt: number; used: number }>();

  constructor(
    readonly quota: number,
    private readonly windowMs = 1000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether the request may pass, the requests left in the current window, and the whole seconds until it restarts (at least 1 while it runs). */
  take(key: string): { allowed: boolean; remaining: number; resetSeconds: number } {
    const now = this.now();
    let window = this.windows.get(key);
    if (window === undefined || now - window.startedAt >= this.windowMs) {
      window = { startedAt: now, used: 0 };
      this.windows.set(key, window);
    }
    const resetSeconds = Math.max(1, Math.ceil((window.startedAt + this.windowMs - now) / 1000));
    if (window.used >= this.quota) return { allowed: false, remaining: 0, resetSeconds };
    window.used += 1;
    return { allowed: true, remaining: this.quota - window.used, resetSeconds };
  }

  /** `RateLimit-Policy` (draft-ietf-httpapi-ratelimit-headers, structured-field form). */
  get policyHeader(): string {
    return `"default";q=${this.quota};w=${Math.ceil(this.windowMs / 1000)}`;
  }

  static header({ remaining, resetSeconds }: ReturnType<RateLimiter['take']>): string {
    return `"default";r=${remaining};t=${resetSeconds}`;
  }
}
