import { Module, type DynamicModule } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { apiKeyringProvider } from './auth/api-keys.provider';
import { rateLimiterProvider } from './auth/rate-limiter.provider';
import { CategoriesController } from './categories/categories.controller';
import type { GatewayConfig } from './config';
import { GATEWAY_CONFIG } from './config.provider';
import { DocsController } from './docs/docs.controller';
import { HealthController } from './health/health.controller';
import { ApiErrorFilter } from './http/api-error.filter';
import { RequestGate } from './http/request-gate';
import { InventoryController } from './inventory/inventory.controller';
import { OrdersController } from './orders/orders.controller';
import { OutboundShutdown } from './outbound-shutdown';
import { PetsController } from './pets/pets.controller';
import { Shutdown } from './shutdown';
import { upstreamProvider } from './upstream/upstream.provider';

/**
 * The gateway: one controller per resource, in the order the document lists them, and the
 * providers they and the request gate use. Built for a configuration (`forRoot`), so that tests
 * run gateways with their own side by side.
 */
@Module({})
export class GatewayModule {
  static forRoot(config: GatewayConfig): DynamicModule {
    return {
      module: GatewayModule,
      controllers: [PetsController, CategoriesController, OrdersController, InventoryController, HealthController, DocsController],
      providers: [
        { provide: GATEWAY_CONFIG, useValue: config },
        upstreamProvider,
        apiKeyringProvider,
        rateLimiterProvider,
        OutboundShutdown,
        Shutdown,
        RequestGate,
        { provide: APP_FILTER, useClass: ApiErrorFilter },
      ],
    };
  }
}
