import { hostPort, int, type ConfigShape } from '@petstore/config';
import { serviceConfigShape, type ServiceConfig } from '@petstore/service-kit';

export interface OrdersConfig extends ServiceConfig {
  /** Where to ask about a pet too new for the catalog's events to have arrived. */
  catalogRpc: { host: string; port: number };
  catalogLookupTimeoutMs: number;
}

/** The name in every envelope orders publishes and the base of its consumer group. */
export const ORDERS_PRODUCER = 'orders';

export const ordersConfigShape: ConfigShape<OrdersConfig> = {
  ...serviceConfigShape({ httpPort: 3002, rpcPort: 4002, database: 'petstore_orders' }),
  catalogRpc: hostPort('CATALOG_RPC', '127.0.0.1:4001'),
  catalogLookupTimeoutMs: int('CATALOG_LOOKUP_TIMEOUT_MS', 1000, { min: 1, max: 60_000 }),
};
