import type { FactoryProvider } from '@nestjs/common';
import type { GatewayConfig } from '../config';
import { GATEWAY_CONFIG } from '../config.provider';
import { ApiKeyring } from './api-keys';

/** The configured API keys, hashed once at start; the request gate authenticates with them. */
export const apiKeyringProvider: FactoryProvider<ApiKeyring> = {
  provide: ApiKeyring,
  useFactory: (config: GatewayConfig) => new ApiKeyring(config.apiKeys),
  inject: [GATEWAY_CONFIG],
};
