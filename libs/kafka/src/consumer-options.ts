import type { Backoff } from '@petstore/backoff';
import type { ConsumedMessage, RefusedMessage } from './consumed-message';

export interface RunnerLogger {
  warn(message: string): void;
  error(message: string): void;
}

/** What the runner reports about its partitions, for metrics. */
export interface ConsumerObserver {
  /** Messages of one partition were handled (or dead-lettered) and their offsets resolved; `lag` is what is left behind them. */
  handled?(info: { topic: string; partition: number; count: number; lag: number; seconds: number }): void;
  retried?(info: { topic: string; partition: number }): void;
  deadLettered?(info: { topic: string; partition: number }): void;
}

export interface ConsumerRunnerOptions {
  /** Full (namespaced) names, as are `topics` and `deadLetterTopic`. */
  groupId: string;
  topics: string[];
  handle(message: ConsumedMessage): Promise<void>;
  /**
   * Optional: handles fetched messages at once, all or nothing (e.g. in one database
   * transaction): those of every partition of a fetch, each partition's consecutive and in
   * order. When it throws, each partition's messages are tried again on their own, and then
   * each message through `handle`, with the usual retries and dead-lettering. The messages it
   * answers as refused go to the dead-letter topic, without another attempt.
   */
  handleBatch?(messages: ConsumedMessage[]): Promise<RefusedMessage[] | void>;
  /** Most messages given to one `handleBatch` call (default 500). */
  maxBatchSize?: number;
  deadLetterTopic: string;
  /** Attempts before a failing message is dead-lettered (default 5). */
  maxAttempts?: number;
  /** Delay between attempts (default 50 ms doubling up to 1 s). */
  backoff?: Backoff;
  /** Where a group without committed offsets starts (default true: nothing published before it first ran is lost). */
  fromBeginning?: boolean;
  /**
   * Partitions handled at once (default 32: every partition a member holds, so that all the
   * batches of a fetch reach `handleBatch` together); one partition is always handled in order.
   */
  partitionsConsumedConcurrently?: number;
  /**
   * Commit the resolved offsets at most this often instead of after every batch (default: after
   * every batch). Only for handlers that drop redelivered messages themselves: a restart or a
   * rebalance redelivers what was handled since the last commit.
   */
  commitIntervalMs?: number;
  /** How long the broker may hold a fetch while there is nothing to read (default 1000 ms). */
  maxWaitTimeInMs?: number;
  logger?: RunnerLogger;
  observer?: ConsumerObserver;
}

/** How often the store's consumers commit their offsets (`commitIntervalMs`): they drop what a restart redelivers. */
export const OFFSET_COMMIT_INTERVAL_MS = 1000;

export interface RunningConsumer {
  readonly groupId: string;
  /** Resolves once this member has joined its group and received its partitions. */
  whenJoined(): Promise<void>;
  /** Finishes the message (or batch) in hand, commits, leaves the group. */
  stop(): Promise<void>;
}
