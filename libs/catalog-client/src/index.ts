export * from './catalog-client.config';
export * from './catalog-client.module';
export * from './catalog.client';
