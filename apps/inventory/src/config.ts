import { hostPort, int, type ConfigShape } from '@petstore/config';
import { serviceConfigShape, type ServiceConfig } from '@petstore/service-kit';

export interface InventoryConfig extends ServiceConfig {
  /** Where to ask about a pet too new for the catalog's events to have arrived. */
  catalogRpc: { host: string; port: number };
  catalogLookupTimeoutMs: number;
}

/** The name in every envelope inventory publishes and the base of its consumer group. */
export const INVENTORY_PRODUCER = 'inventory';

export const inventoryConfigShape: ConfigShape<InventoryConfig> = {
  ...serviceConfigShape({ httpPort: 3003, rpcPort: 4003, database: 'petstore_inventory' }),
  catalogRpc: hostPort('CATALOG_RPC', '127.0.0.1:4001'),
  catalogLookupTimeoutMs: int('CATALOG_LOOKUP_TIMEOUT_MS', 1000, { min: 1, max: 60_000 }),
};
