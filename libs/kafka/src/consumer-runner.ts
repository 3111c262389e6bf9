import { crashPoint } from '@petstore/config';
import { processLogger } from '@petstore/observability';
import type { EachBatchPayload, Kafka, KafkaMessage } from 'kafkajs';
import { BatchGatherer } from './batch-gatherer';
import type { ConsumerRunnerOptions, RunnerLogger, RunningConsumer } from './consumer-options';
import { ConsumerRestarts } from './consumer-restarts';
import { DeadLetterProducer } from './dead-letter-producer';
import { REPLAYED_FOR_GROUP_HEADER } from './headers';
import { MembershipWatch } from './membership-watch';
import { deadLetter, handleWithRetries } from './message-retries';
import { OffsetCommits } from './offset-commits';

/** The group session (why: at the consumer's options below); also how long kafkajs gets to rejoin by itself before the consumer is started again. */
const SESSION_TIMEOUT_MS = 3000;

const processRunnerLogger: RunnerLogger = {
  warn: (message) => processLogger().warn({ context: 'consumer' }, message),
  error: (message) => processLogger().error({ context: 'consumer' }, message),
};

/**
 * Consumes `topics` in group `groupId`, each partition in order: one message at a time, or
 * the fetched messages of every partition of a fetch at once through `handleBatch` when given
 * (batch-gatherer.ts, batch-fallback.ts). A
 * handler error is retried in process with backoff; after the last attempt (or at once for a
 * NonRetriableError) the original message goes to the dead-letter topic and its offset is
 * committed, so one bad message never blocks its partition (message-retries.ts). Offsets are
 * committed after every batch or on an interval (offset-commits.ts); a crash, or a membership
 * kafkajs lost and did not get back, starts the consumer again (consumer-restarts.ts). `stop()`
 * lets the batch in hand finish, commits its offsets and leaves the group.
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
    partitionsConsumedConcurrently = 32,
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
    sessionTimeout: SESSION_TIMEOUT_MS,
    heartbeatInterval: 1000,
    rebalanceTimeout: 15_000,
    // The broker answers a fetch as soon as a message arrives, so this does not add latency; it
    // bounds how long an idle fetch delays a rebalance or a stop, and sets what an idle consumer
    // costs (measured alone: 0.9 % of a core fetching every 500 ms, 0.55 % every second).
    maxWaitTimeInMs,
    allowAutoTopicCreation: false,
    // Every restart after a crash is ConsumerRestarts', one at a time (why: consumer-restarts.ts).
    retry: { initialRetryTime: 100, maxRetryTime: 2000, retries: 5, restartOnFailure: async () => false },
  });
  const gatherer = handleBatch && new BatchGatherer(handleBatch, logger);
  const deadLetters = new DeadLetterProducer(kafka, deadLetterTopic, groupId);
  const retries = { maxAttempts, backoff, logger, observer, deadLetters };
  const membership = new MembershipWatch(SESSION_TIMEOUT_MS);
  const commits = new OffsetCommits(consumer, commitIntervalMs !== undefined, groupId, logger, (error) => {
    if (!error) membership.reset();
    else if (membership.commitFailed(error) && !stopping) {
      logger.warn(`consumer group ${groupId}: the coordinator has not known this member for ${SESSION_TIMEOUT_MS} ms and it did not rejoin; starting the consumer again`);
      restarts.membershipLost();
    }
  });
  const runConfig = {
    partitionsConsumedConcurrently,
    eachBatchAutoResolve: false,
    eachBatch: inFlight,
    ...commits.runConfig(commitIntervalMs),
  };
  let joined!: () => void;
  const joinedPromise = new Promise<void>((resolve) => (joined = resolve));
  consumer.on(consumer.events.GROUP_JOIN, () => {
    membership.reset();
    joined();
  });
  let stopping: Promise<void> | undefined;
  // A new runner commits through its own batches' handles, never a previous runner's (its member is gone).
  const restarts = new ConsumerRestarts(consumer, runConfig, { groupId, logger, beforeRun: () => commits.forget() });
  /** The batches being handled now (one per partition at most): a stop waits for them. */
  const handling = new Set<Promise<void>>();

  function inFlight(payload: EachBatchPayload): Promise<void> {
    const work = eachBatch(payload).finally(() => handling.delete(work));
    handling.add(work);
    return work;
  }

  /**
   * Offsets are resolved only after their message was handled (or dead-lettered): a stop or a
   * rebalance in the middle of a fetched batch leaves the rest for the next owner.
   */
  async function eachBatch(payload: EachBatchPayload): Promise<void> {
    const { batch, resolveOffset, heartbeat, isRunning, isStale } = payload;
    const { topic, partition, messages } = batch;
    commits.seen(payload);
    const goOn = () => !stopping && isRunning() && !isStale();
    for (let start = 0; start < messages.length; start += maxBatchSize) {
      if (!goOn()) return;
      const startedAt = performance.now();
      const chunk = messages.slice(start, start + maxBatchSize);
      const last = chunk[chunk.length - 1].offset;
      const ours = chunk.filter(isForThisGroup);
      const refused = gatherer && ours.length > 0 && (await gatherer.handle(topic, partition, ours));
      if (refused) {
        // The batch handler logged why; the rest of the batch is applied. A crash before these are sent refuses them again on redelivery.
        for (const { offset, reason } of refused) {
          const message = ours.find((one) => one.offset === offset);
          if (message) await deadLetter({ topic, partition, message, heartbeat }, reason, 1, retries);
        }
      } else {
        for (const message of ours) {
          if (!goOn()) return;
          await handleWithRetries({ topic, partition, message, heartbeat }, handle, retries);
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
        await restarts.cancel();
        // The batches in hand finish (no new chunk starts), their offsets are committed while
        // this member still holds the partitions, and then it leaves the group.
        await Promise.allSettled([...handling]);
        await commits.commitAll();
        await consumer.disconnect();
        await deadLetters.disconnect();
      })()),
  };
}
