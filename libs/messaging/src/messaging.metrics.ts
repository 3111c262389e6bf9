import type { ConsumerObserver } from '@petstore/kafka';
import { ScrapedRead, processMetric } from '@petstore/observability';
import { Counter, Gauge, Histogram } from 'prom-client';

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export const relayPublishSeconds = processMetric(
  'petstore_relay_publish_duration_seconds',
  (name) =>
    new Histogram({
      name,
      help: 'Time to publish one batch of outbox rows to Kafka (acknowledged by all in-sync replicas)',
      buckets: LATENCY_BUCKETS,
    }),
);

export const relayPublishedEvents = processMetric(
  'petstore_relay_published_events_total',
  (name) =>
    new Counter({
      name,
      help: 'Outbox rows published to Kafka',
    }),
);

export const relayPublishFailures = processMetric(
  'petstore_relay_publish_failures_total',
  (name) =>
    new Counter({
      name,
      help: 'Batches of outbox rows that could not be published (kept and retried)',
    }),
);

export const consumerLag = processMetric(
  'petstore_consumer_lag',
  (name) =>
    new Gauge({
      name,
      help: 'Messages on the partition behind the last one this consumer handled',
      labelNames: ['topic', 'partition'],
    }),
);

export const consumerEvents = processMetric(
  'petstore_consumer_events_total',
  (name) =>
    new Counter({
      name,
      help: 'Consumed events by outcome: handled, duplicate (already applied), skipped (not handled by this service), refused (see petstore_consumer_refused_total)',
      labelNames: ['topic', 'type', 'outcome'],
    }),
);

export const consumerRefused = processMetric(
  'petstore_consumer_refused_total',
  (name) =>
    new Counter({
      name,
      help: 'Events refused without being applied and sent to the dead-letter topic: foreign-producer (not the owner of its topic), implausible-publication-number (far beyond what its outbox can have published)',
      labelNames: ['topic', 'reason'],
    }),
);

export const consumerRetries = processMetric(
  'petstore_consumer_retries_total',
  (name) =>
    new Counter({
      name,
      help: 'Handler attempts that failed and were retried',
      labelNames: ['topic'],
    }),
);

export const consumerDeadLettered = processMetric(
  'petstore_consumer_dead_lettered_total',
  (name) =>
    new Counter({
      name,
      help: 'Messages sent to the dead-letter topic',
      labelNames: ['topic'],
    }),
);

export const consumerBatchSeconds = processMetric(
  'petstore_consumer_batch_duration_seconds',
  (name) =>
    new Histogram({
      name,
      help: 'Time to handle one fetched batch of a partition, commit included',
      buckets: LATENCY_BUCKETS,
    }),
);

/** The consumer runner's reports, as metrics. */
export const consumerObserver: ConsumerObserver = {
  handled: ({ topic, partition, lag }) => consumerLag.set({ topic, partition: String(partition) }, lag),
  retried: ({ topic }) => consumerRetries.inc({ topic }),
  deadLettered: ({ topic }) => consumerDeadLettered.inc({ topic }),
};

/** Answered by the outbox on each scrape: what waits, and for how long the oldest has. */
export interface OutboxBacklog {
  rows: number;
  oldestAgeSeconds: number;
}

/** The relay of this process answers the outbox gauges; one query answers both gauges of a scrape. */
export const outboxBacklog = new ScrapedRead<OutboxBacklog>();

processMetric(
  'petstore_outbox_backlog',
  (name) =>
    new Gauge({
      name,
      help: 'Outbox rows not yet published to Kafka',
      async collect() {
        const backlog = await outboxBacklog.read();
        if (backlog) this.set(backlog.rows);
      },
    }),
);

processMetric(
  'petstore_outbox_oldest_age_seconds',
  (name) =>
    new Gauge({
      name,
      help: 'Age of the oldest outbox row not yet published (0 when none waits)',
      async collect() {
        const backlog = await outboxBacklog.read();
        if (backlog) this.set(backlog.oldestAgeSeconds);
      },
    }),
);
