import type { FactoryProvider } from '@nestjs/common';
import type { GatewayConfig } from '../config';
import { GATEWAY_CONFIG } from '../config.provider';
import { Upstream } from './upstream';

/** The RPC client of the services, injected into the controllers by its class. */
export const upstreamProvider: FactoryProvider<Upstream> = {
  provide: Upstream,
  useFactory: (config: GatewayConfig) => new Upstream(config),
  inject: [GATEWAY_CONFIG],
};
