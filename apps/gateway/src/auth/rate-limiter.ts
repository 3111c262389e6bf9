import { Logger } from '@nestjs/common';
import { processMetric } from '@petstore/observability';
import { Redis } from 'ioredis';
import { readFileSync } from 'node:fs';
import { Counter } from 'prom-client';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, RLWrapperTimeouts } from 'rate-limiter-flexible';

export interface RateLimitDecision {
  allowed: boolean;
  remaining: number;
  resetSeconds: number;
}

/** The per-key limit as the request gate uses it: counted in this process, or shared by every gateway. */
export interface RateLimit {
  readonly quota: number;
  readonly policyHeader: string;
  take(key: string): RateLimitDecision | Promise<RateLimitDecision>;
  close(): Promise<void>;
}

/**
 * RATE_LIMIT_PER_SECOND (0: none) counted in Redis when RATE_LIMIT_REDIS_URL is set, else in this
 * process. The gateways of one stack share its NATS_SUBJECT_PREFIX, so their keys in Redis carry
 * it too: stacks that share a Redis count apart.
 */
export function createRateLimit(config: {
  rateLimitPerSecond: number;
  rateLimitRedisUrl?: string;
  rateLimitRedisPassword?: string;
  rateLimitRedisCaFile?: string;
  rateLimitRedisTimeoutMs: number;
  natsSubjectPrefix: string;
}): RateLimit | undefined {
  if (config.rateLimitPerSecond === 0) return undefined;
  if (!config.rateLimitRedisUrl) return new RateLimiter(config.rateLimitPerSecond);
  return new SharedRateLimiter(config.rateLimitPerSecond, config.rateLimitRedisUrl, `${RATE_LIMIT_KEY_PREFIX}${config.natsSubjectPrefix}`, config.rateLimitRedisTimeoutMs, {
    password: config.rateLimitRedisPassword,
    caFile: config.rateLimitRedisCaFile,
  });
}

/** Every key the rate limit writes in Redis starts so: the gateway's Redis ACL user may touch these keys only. */
export const RATE_LIMIT_KEY_PREFIX = 'petstore:rate:';

/**
 * A fixed one-second window per API key. The number of keys is bounded by the configuration,
 * so the map never grows with traffic. Counts are per gateway process.
 */
export class RateLimiter implements RateLimit {
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

  static header({ remaining, resetSeconds }: RateLimitDecision): string {
    return `"default";r=${remaining};t=${resetSeconds}`;
  }

  async close(): Promise<void> {
    // Nothing held outside the process.
  }
}

const fallbacks = processMetric(
  'petstore_rate_limit_local_fallbacks_total',
  (name) => new Counter({ name, help: 'Requests whose rate limit was counted in this gateway because Redis did not answer in time or was unreachable' }),
);

/**
 * The same fixed one-second window per API key, counted in Redis by rate-limiter-flexible (one
 * atomic INCR + expiry script per request), so the quota holds across every gateway. When Redis
 * does not answer within `timeoutMs` (RATE_LIMIT_REDIS_TIMEOUT_MS), or is unreachable, the
 * request is counted in this process instead (an insurance limiter with the same quota): while
 * Redis is out, N gateways allow at most N times the quota, as without Redis, and no request
 * waits on it.
 */
export class SharedRateLimiter implements RateLimit {
  private readonly logger = new Logger('RateLimit');
  private readonly redis: Redis;
  private readonly shared: RLWrapperTimeouts;
  /** The insurance: this process's own count, used for a request Redis did not count. */
  private readonly local: RateLimiterMemory;
  private lastWarning = 0;

  constructor(
    readonly quota: number,
    redisUrl: string,
    keyPrefix: string,
    timeoutMs: number,
    { password, caFile }: { password?: string; caFile?: string } = {},
  ) {
    // No offline queue: while disconnected a count fails at once and goes to the local count.
    // No ready check: it runs INFO, which the gateway's ACL user may not (it runs the count's script only).
    // The URL is read here: given to ioredis, its empty password would win over the one from the file.
    const url = new URL(redisUrl);
    this.redis = new Redis({
      host: url.hostname,
      port: Number(url.port || 6379),
      username: decodeURIComponent(url.username) || undefined,
      password: password ?? (decodeURIComponent(url.password) || undefined),
      ...(url.protocol === 'rediss:' ? { tls: caFile ? { ca: readFileSync(caFile) } : {} } : {}),
      enableOfflineQueue: false,
      enableReadyCheck: false,
      maxRetriesPerRequest: 0,
      connectTimeout: 1000,
    });
    this.redis.on('error', (error: Error) => this.warn(`Redis for the rate limit: ${error.message}`));
    const inRedis = new RateLimiterRedis({ storeClient: this.redis, points: quota, duration: 1, keyPrefix, rejectIfRedisNotReady: true });
    this.shared = new RLWrapperTimeouts({ limiter: inRedis, timeoutMs });
    this.local = new RateLimiterMemory({ points: quota, duration: 1 });
  }

  get policyHeader(): string {
    return `"default";q=${this.quota};w=1`;
  }

  async take(key: string): Promise<RateLimitDecision> {
    const counted = await countIn(this.shared, key);
    if (!(counted instanceof Error)) return counted;
    fallbacks.inc();
    this.warn(`Redis did not count a request: ${counted.message}`);
    const local = await countIn(this.local, key);
    // The local count cannot fail; if it did, the request passes, as it would with no limit.
    return local instanceof Error ? { allowed: true, remaining: 0, resetSeconds: 1 } : local;
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }

  /** At most one line a second: a Redis outage would otherwise log every request. */
  private warn(message: string): void {
    if (Date.now() - this.lastWarning < 1000) return;
    this.lastWarning = Date.now();
    this.logger.warn(`${message}; counting in this gateway until it answers`);
  }
}

/** rate-limiter-flexible resolves a request within the quota and rejects one over it with the same result type; anything else is a failure to count. */
async function countIn(limiter: { consume(key: string): Promise<RateLimiterRes> }, key: string): Promise<RateLimitDecision | Error> {
  try {
    return decisionOf(true, await limiter.consume(key));
  } catch (refused) {
    if (refused instanceof RateLimiterRes) return decisionOf(false, refused);
    return refused instanceof Error ? refused : new Error(String(refused));
  }
}

function decisionOf(allowed: boolean, result: RateLimiterRes): RateLimitDecision {
  return { allowed, remaining: allowed ? result.remainingPoints : 0, resetSeconds: Math.max(1, Math.ceil(result.msBeforeNext / 1000)) };
}
