import type { FactoryProvider } from '@nestjs/common';
import type { GatewayConfig } from '../config';
import { GATEWAY_CONFIG } from '../config.provider';
import { createRateLimit, type RateLimit } from './rate-limiter';

/**
 * The rate limit the request gate asks: counted in Redis when RATE_LIMIT_REDIS_URL is set, else in
 * this process; null when RATE_LIMIT_PER_SECOND is 0 (no limit, no headers).
 */
export const RATE_LIMITER = Symbol('RateLimiter');

export const rateLimiterProvider: FactoryProvider<RateLimit | null> = {
  provide: RATE_LIMITER,
  useFactory: (config: GatewayConfig) => createRateLimit(config) ?? null,
  inject: [GATEWAY_CONFIG],
};
