import { catalogClientConfigShape, type CatalogClientConfig } from '@petstore/catalog-client';
import type { ConfigShape } from '@petstore/config';
import { serviceConfigShape, type ServiceConfig } from '@petstore/service-kit';

export interface InventoryConfig extends ServiceConfig, CatalogClientConfig {}

/** The name in every envelope inventory publishes and the base of its consumer group. */
export const INVENTORY_PRODUCER = 'inventory';

export const inventoryConfigShape: ConfigShape<InventoryConfig> = {
  ...serviceConfigShape({ httpPort: 3003, rpcPort: 4003, database: 'petstore_inventory' }),
  ...catalogClientConfigShape,
};
