import { ScrapedRead, processMetric } from '@petstore/observability';
import { Counter, Gauge, Histogram } from 'prom-client';

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

/** The orders service of this process answers the gauge below. */
export const oldestPlacedOrder = new ScrapedRead<number>();

/*
 * The decision-time histogram sees only orders that were decided: an order whose decision never
 * comes (a partition that stopped, a consumer that drops its events) shows only here.
 */
processMetric(
  'petstore_orders_oldest_placed_age_seconds',
  (name) =>
    new Gauge({
      name,
      help: 'Age of the oldest order still placed, waiting for the stock decision (0 when none waits)',
      async collect() {
        const age = await oldestPlacedOrder.read();
        if (age !== undefined) this.set(age);
      },
    }),
);
