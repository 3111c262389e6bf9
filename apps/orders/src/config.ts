import { catalogClientConfigShape, type CatalogClientConfig } from '@petstore/catalog-client';
import { int, type ConfigShape } from '@petstore/config';
import { serviceConfigShape, type ServiceConfig } from '@petstore/service-kit';

export interface OrdersConfig extends ServiceConfig, CatalogClientConfig {
  /** `Prefer: wait` answers one replica holds at most; past it an answer is given at once. */
  maxHeldAnswers: number;
}

/** The name in every envelope orders publishes and the base of its consumer group. */
export const ORDERS_PRODUCER = 'orders';

export const ordersConfigShape: ConfigShape<OrdersConfig> = {
  ...serviceConfigShape({ httpPort: 3002, rpcPort: 4002, database: 'petstore_orders' }),
  ...catalogClientConfigShape,
  maxHeldAnswers: int('MAX_HELD_ANSWERS', 10_000, { min: 0, max: 1_000_000 }),
};
