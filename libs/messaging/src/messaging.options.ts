import type { Type } from '@nestjs/common';
import type { Backoff, LogLevel } from '@petstore/kafka';

export interface RelaySettings {
  /** Rows claimed and published per round trip. */
  batchSize: number;
  /** The safety-net sweep: catches rows whose wake-up was missed (another replica's commit, a crash). */
  sweepIntervalMs: number;
  /** Published rows are deleted once older than this (they only serve inspection). */
  retentionMs: number;
  purgeIntervalMs: number;
  /** Delay before re-trying a batch that failed to publish. */
  backoff: Backoff;
  /** Longest a shutdown waits for the last batch. */
  flushTimeoutMs: number;
}

export interface ConsumerSettings {
  /** Attempts of a failing handler before the message goes to the dead-letter topic. */
  maxAttempts: number;
  backoff: Backoff;
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
  sweepIntervalMs: 1000,
  retentionMs: 60 * 60 * 1000,
  purgeIntervalMs: 60 * 1000,
  backoff: { initialMs: 200, maxMs: 5000 },
  flushTimeoutMs: 5000,
};

export const defaultConsumerSettings: ConsumerSettings = {
  maxAttempts: 5,
  backoff: { initialMs: 50, maxMs: 1000 },
};

export const MESSAGING_OPTIONS = Symbol('MESSAGING_OPTIONS');
export const RELAY_SETTINGS = Symbol('RELAY_SETTINGS');
