import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import type { RateLimit } from './auth/rate-limiter';
import { RATE_LIMITER } from './auth/rate-limiter.provider';
import { Upstream } from './upstream/upstream';

/**
 * Closes the gateway's outbound connections (the RPC client, the rate limit's Redis) once the
 * HTTP server has closed, so that requests still draining keep them.
 */
@Injectable()
export class OutboundShutdown implements OnApplicationShutdown {
  constructor(
    private readonly upstream: Upstream,
    @Inject(RATE_LIMITER) private readonly rateLimit: RateLimit | null,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([this.upstream.close(), this.rateLimit?.close()]);
  }
}
