import type { FactoryProvider } from '@nestjs/common';
import type { GatewayConfig } from '../config';
import { GATEWAY_CONFIG } from '../config.provider';
import { RateLimiter } from './rate-limiter';

/** The rate limiter the request gate asks, or null when RATE_LIMIT_PER_SECOND is 0 (no limit, no headers). */
export const RATE_LIMITER = Symbol('RateLimiter');

export const rateLimiterProvider: FactoryProvider<RateLimiter | null> = {
  provide: RATE_LIMITER,
  useFactory: (config: GatewayConfig) => (config.rateLimitPerSecond > 0 ? new RateLimiter(config.rateLimitPerSecond) : null),
  inject: [GATEWAY_CONFIG],
};
