import { catalogClientConfigShape, type CatalogClientConfig } from '@petstore/catalog-client';
import type { ConfigShape } from '@petstore/config';
import { serviceConfigShape, type ServiceConfig } from '@petstore/service-kit';

export interface OrdersConfig extends ServiceConfig, CatalogClientConfig {}

/** The name in every envelope orders publishes and the base of its consumer group. */
export const ORDERS_PRODUCER = 'orders';

export const ordersConfigShape: ConfigShape<OrdersConfig> = {
  ...serviceConfigShape({ httpPort: 3002, rpcPort: 4002, database: 'petstore_orders' }),
  ...catalogClientConfigShape,
};
