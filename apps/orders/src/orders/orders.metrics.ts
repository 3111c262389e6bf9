import { processMetric } from '@petstore/observability';
import { Counter, Histogram } from 'prom-client';

export const ordersPlaced = processMetric(
  'petstore_orders_placed_total',
  (name) =>
    new Counter({
      name,
      help: 'Orders placed (replayed idempotency keys not counted)',
    }),
);

export const ordersDecided = processMetric(
  'petstore_orders_decided_total',
  (name) =>
    new Counter({
      name,
      help: 'Orders the inventory decided',
      labelNames: ['status'],
    }),
);

export const ordersCancelled = processMetric(
  'petstore_orders_cancelled_total',
  (name) =>
    new Counter({
      name,
      help: 'Orders cancelled (by a client or a deleted pet)',
    }),
);

export const orderDecisionSeconds = processMetric(
  'petstore_order_decision_seconds',
  (name) =>
    new Histogram({
      name,
      help: 'From an order placed to its decision recorded',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    }),
);
