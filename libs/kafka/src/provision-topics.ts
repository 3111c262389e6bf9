import { DEFAULT_TOPIC_PARTITIONS } from '@petstore/contracts';
import type { Admin } from 'kafkajs';

/** How every topic of the store is created: one setting for all, so each consumer group scales the same way. */
export interface TopicSettings {
  /** The ceiling on the replicas of one consumer group that share a topic's load. */
  partitions: number;
  /** Copies of each partition; 3 on a cluster, 1 on a single development broker. */
  replicationFactor: number;
  /** Replicas that must hold a write before acks=all acknowledges it (the topic's min.insync.replicas). */
  minInsyncReplicas: number;
}

export const DEFAULT_TOPIC_SETTINGS: TopicSettings = { partitions: DEFAULT_TOPIC_PARTITIONS, replicationFactor: 1, minInsyncReplicas: 1 };

/**
 * KAFKA_TOPIC_PARTITIONS, KAFKA_REPLICATION_FACTOR and KAFKA_MIN_INSYNC_REPLICAS. Read here rather
 * than passed down by every caller, so that each process that may create a topic creates it alike.
 * A wrong value stops the start with the variable's name instead of creating a topic that cannot
 * take a write (min.insync.replicas above the replication factor).
 */
export function topicSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): TopicSettings {
  const read = (name: string, fallback: number): number => {
    const raw = env[name]?.trim();
    if (!raw) return fallback;
    if (!/^[1-9][0-9]*$/.test(raw)) throw new Error(`${name} must be a positive whole number, not "${raw}"`);
    return Number(raw);
  };
  const settings: TopicSettings = {
    partitions: read('KAFKA_TOPIC_PARTITIONS', DEFAULT_TOPIC_SETTINGS.partitions),
    replicationFactor: read('KAFKA_REPLICATION_FACTOR', DEFAULT_TOPIC_SETTINGS.replicationFactor),
    minInsyncReplicas: read('KAFKA_MIN_INSYNC_REPLICAS', DEFAULT_TOPIC_SETTINGS.minInsyncReplicas),
  };
  if (settings.minInsyncReplicas > settings.replicationFactor) {
    throw new Error(
      `KAFKA_MIN_INSYNC_REPLICAS (${settings.minInsyncReplicas}) must not exceed KAFKA_REPLICATION_FACTOR ` +
        `(${settings.replicationFactor}): no write could be acknowledged`,
    );
  }
  return settings;
}

/**
 * Creates the topics that do not exist yet and waits until each partition has a leader, so
 * producing right after this resolves works. Safe to call from every replica at start-up:
 * a topic another process created in the meantime is not an error.
 *
 * A topic that exists keeps its partitions: adding some moves keys to other partitions, which
 * breaks per-key order while the old partitions drain, so it is an operator's step
 * (docs/OPERATIONS.md, "Scaling"), never a side effect of a start.
 */
export async function provisionTopics(
  admin: Admin,
  names: string[],
  settings: TopicSettings = topicSettingsFromEnv(),
): Promise<void> {
  const wanted = [...new Set(names)];
  const existing = new Set(await admin.listTopics());
  const missing = wanted.filter((name) => !existing.has(name));
  if (missing.length === 0) return;
  try {
    await admin.createTopics({
      // Waited for below instead: on a cluster the broker asked may not know the new topic yet,
      // which kafkajs's own wait reports as an error rather than waiting through.
      waitForLeaders: false,
      timeout: 10_000,
      topics: missing.map((topic) => ({
        topic,
        numPartitions: settings.partitions,
        replicationFactor: settings.replicationFactor,
        configEntries: [{ name: 'min.insync.replicas', value: String(settings.minInsyncReplicas) }],
      })),
    });
  } catch (error) {
    if (!onlyAlreadyExists(error)) throw error;
  }
  await waitForTopics(admin, missing);
}

/** kafkajs reports a partly failed createTopics as one error listing each topic's failure. */
function onlyAlreadyExists(error: unknown): boolean {
  const failures = (error as { errors?: { type?: string }[] }).errors;
  if (Array.isArray(failures) && failures.length > 0) {
    return failures.every((failure) => failure.type === 'TOPIC_ALREADY_EXISTS');
  }
  return (error as { type?: string }).type === 'TOPIC_ALREADY_EXISTS';
}

/**
 * What provisioning creates reaches the brokers one after the other, and each answer comes from
 * whichever broker the client asks, so a state counts as reached only after several answers in a
 * row say so.
 */
const READY_ANSWERS_IN_A_ROW = 3;

/**
 * Asks `ready` every 50 ms until it answers true several times in a row, and fails with
 * `failure()` once `timeoutMs` has passed without that.
 */
export async function untilReadyInARow(ready: () => Promise<boolean>, timeoutMs: number, failure: () => Error): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let readyAnswers = 0;
  for (;;) {
    readyAnswers = (await ready()) ? readyAnswers + 1 : 0;
    if (readyAnswers >= READY_ANSWERS_IN_A_ROW) return;
    if (Date.now() > deadline) throw failure();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Resolves once every topic exists and each partition has a leader (topics created by a
 * concurrent caller may still be electing leaders). A service waits so for the topics
 * provisioning made; one that is missing fails the start with its name.
 */
export async function waitForTopics(admin: Admin, topics: string[], timeoutMs = 10_000): Promise<void> {
  await untilReadyInARow(
    async () => {
      try {
        const { topics: metadata } = await admin.fetchTopicMetadata({ topics });
        return metadata.every((topic) => topic.partitions.length > 0 && topic.partitions.every((partition) => partition.leader >= 0));
      } catch (error) {
        // A broker that has not applied the creation yet does not know the topic: ask again.
        if (!(error as { retriable?: boolean }).retriable) throw error;
        return false;
      }
    },
    timeoutMs,
    () => new Error(`Topics missing or without a leader: ${topics.join(', ')} (provisioning creates them: main.js kafka-provision)`),
  );
}
