import { Module, type DynamicModule } from '@nestjs/common';
import { CATALOG_CLIENT_OPTIONS, CatalogClient, type CatalogClientOptions } from './catalog.client';

@Module({})
export class CatalogModule {
  static forRoot(options: CatalogClientOptions): DynamicModule {
    return {
      module: CatalogModule,
      global: true,
      providers: [{ provide: CATALOG_CLIENT_OPTIONS, useValue: options }, CatalogClient],
      exports: [CatalogClient],
    };
  }
}
