import { serviceConfigShape, type ServiceConfig } from '@petstore/service-kit';

export type CatalogConfig = ServiceConfig;

/** The name in every envelope the catalog publishes and the base of its consumer group. */
export const CATALOG_PRODUCER = 'catalog';

export const catalogConfigShape = serviceConfigShape({ httpPort: 3001, rpcPort: 4001, database: 'petstore_catalog' });
