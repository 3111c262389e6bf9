import { Injectable, type FactoryProvider, type OnApplicationShutdown } from '@nestjs/common';
import type { GatewayConfig } from '../config';
import { GATEWAY_CONFIG } from '../config.provider';
import { Upstream } from './upstream';

/** The RPC client of the services, injected into the controllers by its class. */
export const upstreamProvider: FactoryProvider<Upstream> = {
  provide: Upstream,
  useFactory: (config: GatewayConfig) => new Upstream(config),
  inject: [GATEWAY_CONFIG],
};

/** Closes the RPC client once the HTTP server has closed, so that requests still draining keep their connections. */
@Injectable()
export class UpstreamShutdown implements OnApplicationShutdown {
  constructor(private readonly upstream: Upstream) {}

  onApplicationShutdown(): Promise<void> {
    return this.upstream.close();
  }
}
