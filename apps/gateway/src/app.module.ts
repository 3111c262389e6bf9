import { Module, type DynamicModule } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { CategoriesModule } from './categories/categories.module';
import { GATEWAY_CONFIG, type GatewayConfig } from './config';
import { DocsModule } from './docs/docs.module';
import { HealthModule } from './health/health.module';
import { ErrorFilter } from './http/error.filter';
import { RequestGate } from './http/request-gate';
import { InventoryModule } from './inventory/inventory.module';
import { OperationsModule } from './operations/operations.module';
import { OrdersModule } from './orders/orders.module';
import { PetsModule } from './pets/pets.module';
import { UpstreamModule } from './upstream/upstream.module';

@Module({})
export class AppModule {
  static forRoot(config: GatewayConfig): DynamicModule {
    return {
      module: AppModule,
      global: true,
      imports: [
        OperationsModule,
        UpstreamModule,
        PetsModule,
        CategoriesModule,
        OrdersModule,
        InventoryModule,
        HealthModule,
        DocsModule,
      ],
      providers: [{ provide: GATEWAY_CONFIG, useValue: config }, RequestGate, { provide: APP_FILTER, useClass: ErrorFilter }],
      exports: [GATEWAY_CONFIG],
    };
  }
}
