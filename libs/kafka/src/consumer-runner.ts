import { crashPoint } from '@petstore/config';
import { processLogger } from '@petstore/observability';
import type { EachBatchPayload, IHeaders, Kafka, KafkaMessage } from 'kafkajs';
import { backoffDelay, sleep, type Backoff } from '@petstore/backoff';
import { createIdempotentProducer } from './producer';

/** A message as the handler sees it. */
export interface ConsumedMessage {
  topic: string;
  partition: number;
  offset: string;
  key: string | null;
  value: Buffer | null;
  /** Header values decoded as UTF-8 (the first one when a header repeats). */
  headers: Record<string, string>;
  timestamp: string;
  /** 1 for the first delivery to the handler, counting in-process retries. */
  attempt: number;
}

/** Thrown by a handler for a message that no retry can fix: it goes to the dead-letter topic at once. */
export class NonRetriableError extends Error {
  override readonly name = 'NonRetriableError';

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** Headers added to a dead-lettered message, next to its original headers. */
export const DEAD_LETTER_HEADERS = {
  topic: 'dead-letter-original-topic',
  partition: 'dead-letter-original-partition',
  offset: 'dead-letter-original-offset',
  group: 'dead-letter-consumer-group',
  attempts: 'dead-letter-attempts',
  error: 'dead-letter-error',
  errorName: 'dead-letter-error-name',
  failedAt: 'dead-letter-failed-at',
} as const;

/**
 * Set on a message replayed from a dead-letter topic: the consumer group it is for. Other groups
 * of the topic handled the original already, so they skip it.
 */
export const REPLAYED_FOR_GROUP_HEADER = 'replayed-for-group';

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
   * Optional: handles consecutive messages of one partition at once, in order, all or nothing
   * (e.g. in one database transaction). When it throws, each of those messages is handled
   * again on its own through `handle`, with the usual retries and dead-lettering.
   */
  handleBatch?(messages: ConsumedMessage[]): Promise<void>;
  /** Most messages given to one `handleBatch` call (default 500). */
  maxBatchSize?: number;
  deadLetterTopic: string;
  /** Attempts before a failing message is dead-lettered (default 5). */
  maxAttempts?: number;
  /** Delay between attempts (default 50 ms doubling up to 1 s). */
  backoff?: Backoff;
  /** Where a group without committed offsets starts (default true: nothing published before it first ran is lost). */
  fromBeginning?: boolean;
  /** Partitions handled at once (default 3, the partitions of a topic); one partition is always handled in order. */
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

export interface RunningConsumer {
  readonly groupId: string;
  /** Resolves once this member has joined its group and received its partitions. */
  whenJoined(): Promise<void>;
  /** Finishes the message (or batch) in hand, commits, leaves the group. */
  stop(): Promise<void>;
}

const processRunnerLogger: RunnerLogger = {
  warn: (message) => processLogger().warn({ context: 'consumer' }, message),
  error: (message) => processLogger().error({ context: 'consumer' }, message),
};

/**
 * Consumes `topics` in group `groupId`, each partition in order: one message at a time, or
 * runs of fetched messages at once through `handleBatch` when given. A handler error
 * is retried in process with backoff; after the last attempt (or at once for a
 * NonRetriableError) the original message goes to the dead-letter topic and its offset is
 * committed, so one bad message never blocks its partition.
 */
export async function runConsumer(kafka: Kafka, options: ConsumerRunnerOptions): Promise<RunningConsumer> {
  const {
    groupId,
    topics,
    handle,
    handleBatch,
    maxBatchSize = 500,
    deadLetterTopic,
    maxAttempts = 5,
    backoff = { initialMs: 50, maxMs: 1000 },
    fromBeginning = true,
    partitionsConsumedConcurrently = 3,
    maxWaitTimeInMs = 1000,
    commitIntervalMs,
    logger = processRunnerLogger,
    observer = {},
  } = options;
  if (topics.length === 0) throw new Error(`Consumer group ${groupId} has no topics`);

  const consumer = kafka.consumer({
    groupId,
    // A member killed without leaving (kill -9, OOM) holds its partitions until its session
    // expires, and every rejoin waits for that: the session timeout is what bounds recovery
    // (measured: 5 quick kill -9 restarts, last member in after ~6.5 s at 6 s, ~2.6 s at 3 s).
    // Heartbeats go out between handled chunks, so one chunk may take up to this long before
    // its member is dropped and rejoins (and the chunk is redelivered, then deduplicated).
    // Brokers must allow it (group.min.session.timeout.ms, 1 s on ours).
    sessionTimeout: 3000,
    heartbeatInterval: 1000,
    rebalanceTimeout: 15_000,
    // The broker answers a fetch as soon as a message arrives, so this does not add latency; it
    // bounds how long an idle fetch delays a rebalance or a stop, and sets what an idle consumer
    // costs (measured alone: 0.9 % of a core fetching every 500 ms, 0.55 % every second).
    maxWaitTimeInMs,
    allowAutoTopicCreation: false,
    retry: { initialRetryTime: 100, maxRetryTime: 2000, retries: 5 },
  });
  const deadLetters = createIdempotentProducer(kafka);

  // kafkajs commits after every batch whatever its interval says. With an interval the runner
  // commits instead, after a fetch once the interval has passed: a batch costs no commit round
  // trip, and the idle fetches (one per maxWaitTimeInMs) commit what the last batches left.
  const committingOnInterval = commitIntervalMs !== undefined;
  /** kafkajs's only handle on its resolved offsets, taken from the latest batch. */
  let commitResolved: (() => Promise<void>) | undefined;
  let committing: Promise<void> | undefined;
  if (committingOnInterval) {
    consumer.on(consumer.events.FETCH, () => {
      if (!commitResolved || committing) return;
      committing = commitResolved()
        .catch((error: Error) => logger.warn(`committing the offsets of ${groupId} failed: ${error.message}`))
        .finally(() => (committing = undefined));
    });
  }
  const runConfig = {
    partitionsConsumedConcurrently,
    eachBatchAutoResolve: false,
    eachBatch,
    ...(committingOnInterval && { autoCommit: false, autoCommitInterval: commitIntervalMs }),
  };
  let joined!: () => void;
  const joinedPromise = new Promise<void>((resolve) => (joined = resolve));
  consumer.on(consumer.events.GROUP_JOIN, () => joined());
  let stopping: Promise<void> | undefined;
  let restartTimer: NodeJS.Timeout | undefined;
  // kafkajs restarts a crashed consumer by itself only after retriable errors. After any other
  // crash (seen: "Failed to find group coordinator" while the broker restarts) the member is gone
  // for good and its partitions stall, so it is started again here, with backoff, until it runs.
  const restartAfterCrash = (attempt: number): void => {
    restartTimer = setTimeout(
      async () => {
        if (stopping) return;
        try {
          await consumer.connect();
          await consumer.run(runConfig);
          logger.warn(`consumer group ${groupId} restarted after a crash`);
        } catch (error) {
          logger.error(`restarting consumer group ${groupId} failed: ${(error as Error).message}`);
          restartAfterCrash(attempt + 1);
        }
      },
      backoffDelay(attempt, { initialMs: 500, maxMs: 10_000 }),
    );
  };
  consumer.on(consumer.events.CRASH, ({ payload }) => {
    logger.error(`consumer group ${groupId} crashed (restart: ${payload.restart}): ${payload.error.message}`);
    if (!payload.restart && !stopping) restartAfterCrash(1);
  });

  async function deadLetter(payload: OneMessage, error: unknown, attempts: number): Promise<void> {
    const { topic, partition, message } = payload;
    const reason = error instanceof Error ? error : new Error(String(error));
    logger.error(
      `dead-lettering ${topic}[${partition}]@${message.offset} after ${attempts} attempt(s): ${reason.message}`,
    );
    observer.deadLettered?.({ topic, partition });
    await deadLetters.send({
      topic: deadLetterTopic,
      acks: -1,
      messages: [
        {
          key: message.key,
          value: message.value,
          headers: {
            ...message.headers,
            [DEAD_LETTER_HEADERS.topic]: topic,
            [DEAD_LETTER_HEADERS.partition]: String(partition),
            [DEAD_LETTER_HEADERS.offset]: message.offset,
            [DEAD_LETTER_HEADERS.group]: groupId,
            [DEAD_LETTER_HEADERS.attempts]: String(attempts),
            [DEAD_LETTER_HEADERS.error]: reason.message.slice(0, 2000),
            [DEAD_LETTER_HEADERS.errorName]: reason.name,
            [DEAD_LETTER_HEADERS.failedAt]: new Date().toISOString(),
          },
        },
      ],
    });
  }

  /**
   * Offsets are resolved only after their message was handled (or dead-lettered): a stop or a
   * rebalance in the middle of a fetched batch leaves the rest for the next owner.
   */
  async function eachBatch({
    batch,
    resolveOffset,
    heartbeat,
    commitOffsetsIfNecessary,
    isRunning,
    isStale,
  }: EachBatchPayload): Promise<void> {
    const { topic, partition, messages } = batch;
    commitResolved = commitOffsetsIfNecessary;
    for (let start = 0; start < messages.length; start += maxBatchSize) {
      if (!isRunning() || isStale()) return;
      const startedAt = performance.now();
      const chunk = messages.slice(start, start + maxBatchSize);
      const last = chunk[chunk.length - 1].offset;
      const ours = chunk.filter(isForThisGroup);
      if (!(handleBatch && ours.length > 1 && (await handledAsOne(handleBatch, topic, partition, ours)))) {
        for (const message of ours) {
          if (!isRunning() || isStale()) return;
          await eachMessage({ topic, partition, message, heartbeat });
          if (message.offset !== last) resolveOffset(message.offset);
          await heartbeat();
        }
      }
      // The database has the effects and Kafka not yet the offsets: a crash here means a redelivery.
      crashPoint('consumer.after-commit');
      resolveOffset(last);
      observer.handled?.({
        topic,
        partition,
        count: chunk.length,
        lag: Math.max(0, Number(batch.highWatermark) - 1 - Number(last)),
        seconds: (performance.now() - startedAt) / 1000,
      });
      await heartbeat();
    }
  }

  /** False for a replay meant for another consumer group of the topic. */
  function isForThisGroup(message: KafkaMessage): boolean {
    const header = message.headers?.[REPLAYED_FOR_GROUP_HEADER];
    const target = Array.isArray(header) ? header[0] : header;
    return target === undefined || target.toString() === groupId;
  }

  /** The chunk through handleBatch, all or nothing; false when it must be handled one message at a time. */
  async function handledAsOne(
    handleAll: (messages: ConsumedMessage[]) => Promise<void>,
    topic: string,
    partition: number,
    chunk: KafkaMessage[],
  ): Promise<boolean> {
    try {
      await handleAll(chunk.map((message) => ({ ...toConsumedMessage(topic, partition, message), attempt: 1 })));
      return true;
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      logger.warn(
        `${topic}[${partition}]@${chunk[0].offset}..${chunk[chunk.length - 1].offset} failed as a batch ` +
          `(${reason}); handling its messages one by one`,
      );
      return false;
    }
  }

  async function eachMessage(payload: OneMessage): Promise<void> {
    const base = toConsumedMessage(payload.topic, payload.partition, payload.message);
    for (let attempt = 1; ; attempt++) {
      try {
        await handle({ ...base, attempt });
        return;
      } catch (error) {
        if (error instanceof NonRetriableError || attempt >= maxAttempts) {
          await deadLetter(payload, error, attempt);
          return;
        }
        const delay = backoffDelay(attempt, backoff);
        const reason = error instanceof Error ? error.message : String(error);
        observer.retried?.({ topic: payload.topic, partition: payload.partition });
        logger.warn(
          `${payload.topic}[${payload.partition}]@${base.offset} failed (attempt ${attempt}/${maxAttempts}), ` +
            `retrying in ${delay} ms: ${reason}`,
        );
        await sleep(delay);
        await payload.heartbeat();
      }
    }
  }

  await deadLetters.connect();
  try {
    await consumer.connect();
    await consumer.subscribe({ topics, fromBeginning });
    await consumer.run(runConfig);
  } catch (error) {
    await Promise.allSettled([consumer.disconnect(), deadLetters.disconnect()]);
    throw error;
  }

  return {
    groupId,
    whenJoined: () => joinedPromise,
    stop: () =>
      (stopping ??= (async () => {
        clearTimeout(restartTimer);
        await consumer.disconnect();
        await deadLetters.disconnect();
      })()),
  };
}

interface OneMessage {
  topic: string;
  partition: number;
  message: KafkaMessage;
  heartbeat(): Promise<void>;
}

function toConsumedMessage(topic: string, partition: number, message: KafkaMessage): Omit<ConsumedMessage, 'attempt'> {
  return {
    topic,
    partition,
    offset: message.offset,
    key: message.key ? message.key.toString('utf8') : null,
    value: message.value,
    headers: decodeHeaders(message.headers),
    timestamp: message.timestamp,
  };
}

export function decodeHeaders(headers: IHeaders | undefined): Record<string, string> {
  const decoded: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    const first = Array.isArray(value) ? value[0] : value;
    if (first !== undefined) decoded[name] = first.toString();
  }
  return decoded;
}
