import { Module, type DynamicModule } from '@nestjs/common';
import type { CatalogClientConfig } from './catalog-client.config';
import { CATALOG_CLIENT_CONFIG, CatalogClient } from './catalog.client';

@Module({})
export class CatalogClientModule {
  /** Global: every feature module of the service may inject CatalogClient. */
  static forRoot(config: CatalogClientConfig): DynamicModule {
    return {
      module: CatalogClientModule,
      global: true,
      providers: [{ provide: CATALOG_CLIENT_CONFIG, useValue: config }, CatalogClient],
      exports: [CatalogClient],
    };
  }
}
