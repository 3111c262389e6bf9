import type { Type } from '@nestjs/common';
import type { Backoff } from '@petstore/backoff';
import type { LogLevel } from '@petstore/kafka';

export interface RelaySettings {
  /** Rows claimed and published per round trip. */
  batchSize: number;
  /** The safety-net sweep of the leading replica: catches a wake-up that was lost (a writer that crashed right after its commit). */
  sweepIntervalMs: number;
  /** `processed_event` rows (events without a publication number) are kept this long: the topics' retention. */
  processedEventRetentionMs: number;
  purgeIntervalMs: number;
  /** Delay before re-trying a batch that failed to publish, and before waiting for the leader lock again. */
  backoff: Backoff;
  /** Longest a shutdown waits for the last batch. */
  flushTimeoutMs: number;
  /** Published rows after which the relay empties the table (TRUNCATE) at its next chance, so that its size stays bounded without vacuum. */
  emptyOutboxAfterRows: number;
}

export interface ConsumerSettings {
  /** Attempts of a failing handler before the message goes to the dead-letter topic. */
  maxAttempts: number;
  backoff: Backoff;
  /** Most messages of one partition handled in one transaction. */
  maxBatchSize: number;
  /**
   * How far beyond the highest publication number this consumer has applied from an outbox a
   * new one may be (see `admit` in consumer-positions.ts, and docs/ARCHITECTURE.md): one further
   * ahead is refused to the dead-letter topic instead of moving the position.
   */
  maxPublicationLead: number;
}

export interface MessagingOptions {
  /** The service's name: `envelope.producer`, the consumer group and the dead-letter topic's base name. */
  producer: string;
  kafka: {
    brokers: string[] | string;
    /** Prefix of every topic and consumer group (KAFKA_NAMESPACE); empty in production. */
    namespace?: string;
    logLevel?: LogLevel;
  };
  /** Classes decorated with @EventHandler; the service consumes nothing when omitted or empty. */
  handlers?: Type<unknown>[];
  relay?: Partial<RelaySettings>;
  consumer?: Partial<ConsumerSettings>;
}

export const defaultRelaySettings: RelaySettings = {
  batchSize: 500,
  sweepIntervalMs: 5000,
  // Kafka's default log retention (log.retention.hours=168).
  processedEventRetentionMs: 7 * 24 * 60 * 60 * 1000,
  purgeIntervalMs: 60 * 60 * 1000,
  // After a Kafka outage the relay notices the brokers are back within its longest wait: at 5 s
  // the saga resumed up to 5 s after the brokers could take writes again (docs/RELIABILITY.md,
  // "two of three brokers down"). An attempt every 2 s while they cannot is one claim of a batch
  // and one refused send.
  backoff: { initialMs: 200, maxMs: 2000 },
  flushTimeoutMs: 5000,
  emptyOutboxAfterRows: 10_000,
};

export const defaultConsumerSettings: ConsumerSettings = {
  maxAttempts: 5,
  backoff: { initialMs: 50, maxMs: 1000 },
  maxBatchSize: 500,
  // Numbers an outbox may hand out that this consumer has not applied yet: about five minutes of
  // the saga at its measured peak (docs/ARCHITECTURE.md, "Who may write an event, and a forged
  // publication number").
  maxPublicationLead: 1_000_000,
};

export const MESSAGING_OPTIONS = Symbol('MESSAGING_OPTIONS');
export const RELAY_SETTINGS = Symbol('RELAY_SETTINGS');
