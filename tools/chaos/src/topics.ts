// What the checks read on the run's topics, as the administrator: whole topics, consumer
// positions, dead letters. The judging of what is read is invariants.ts's.
import { randomBytes } from 'node:crypto';
import { kafkajs } from '@petstore/kafka';
import { kafkaClientAuth } from '@petstore/stack';
import { sleep } from '@petstore/backoff';
import { DEAD_LETTER_TOPICS, SUBSCRIPTIONS, decisionsIn, partitionLag, republishedCount, type DeadLetter, type Decisions, type Envelope, type Lag } from './invariants';

/** One message of a topic as the checks and the forging scenarios use it. */
export interface TopicMessage {
  partition: number;
  offset: string;
  key?: string;
  value: Buffer | null;
  headers?: kafkajs.IHeaders;
}

/** As the administrator: the checks read every topic of the run, and the scenarios write poisoned events. */
export function chaosKafka(brokers: string, secretsDir: string | undefined): kafkajs.Kafka {
  if (!secretsDir) throw new Error('The chaos stacks run with a secured bus: their layout names its secrets');
  return new kafkajs.Kafka({
    clientId: 'chaos-checks',
    brokers: brokers.split(','),
    ...kafkaClientAuth(secretsDir, 'admin'),
    logLevel: kafkajs.logLevel.NOTHING,
    connectionTimeout: 2000,
    retry: { initialRetryTime: 200, maxRetryTime: 2000, retries: 10 },
  });
}

/**
 * `read` (admin reads of metadata and offsets, each with an admin of its own) again while a broker
 * answers that a partition's leadership has just moved: kafkajs's admin does not retry that
 * answer itself, and after a broker's restart the controller moves leaderships for a while.
 */
export async function whileLeadersMove<T>(read: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await read();
    } catch (error) {
      if (!(error as { retriable?: boolean } | undefined)?.retriable || attempt >= 10) throw error;
      await sleep(500);
    }
  }
}

/** Every message of `topic` up to its end as it was when called (a fresh group, from the beginning). */
export async function readTopic(kafka: kafkajs.Kafka, topic: string, timeoutMs = 60_000): Promise<TopicMessage[]> {
  const ends = await whileLeadersMove(async () => {
    const admin = kafka.admin();
    await admin.connect();
    return admin.fetchTopicOffsets(topic).finally(() => admin.disconnect());
  });
  const remaining = new Map(ends.filter((p) => Number(p.high) > Number(p.low)).map((p) => [p.partition, Number(p.high)]));
  const messages: TopicMessage[] = [];
  if (remaining.size === 0) return messages;
  const consumer = kafka.consumer({ groupId: `chaos-reader-${randomBytes(6).toString('hex')}`, maxWaitTimeInMs: 200 });
  await consumer.connect();
  try {
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    let done: () => void = () => undefined;
    const finished = new Promise<void>((resolve) => (done = resolve));
    await consumer.run({
      eachBatch: async ({ batch }) => {
        const end = remaining.get(batch.partition);
        for (const message of batch.messages) {
          if (end === undefined || Number(message.offset) >= end) break;
          messages.push({ partition: batch.partition, offset: message.offset, key: message.key?.toString(), value: message.value, headers: message.headers });
          if (Number(message.offset) === end - 1) remaining.delete(batch.partition);
        }
        if (remaining.size === 0) done();
      },
    });
    const timedOut = await Promise.race([finished.then(() => false), sleep(timeoutMs).then(() => true)]);
    if (timedOut) throw new Error(`reading ${topic} did not reach its end within ${timeoutMs / 1000} s`);
  } finally {
    await consumer.disconnect().catch(() => undefined);
  }
  return messages;
}

export function envelopeOf(message: TopicMessage): Envelope | undefined {
  try {
    return JSON.parse((message.value ?? Buffer.alloc(0)).toString('utf8'));
  } catch {
    return undefined;
  }
}

/** The decision events of inventory for `orderIds` (see decisionsIn), read from its topic. */
export async function decisionsOf(kafka: kafkajs.Kafka, namespace: string, orderIds: number[], ignored: Set<string>): Promise<Decisions> {
  const messages = await readTopic(kafka, `${namespace}inventory.stock.v1`);
  return decisionsIn(messages.map(envelopeOf), orderIds, ignored);
}

/** Messages published more than once under the same event id on `topic` (the relay's duplicates). */
export async function republishedOn(kafka: kafkajs.Kafka, topic: string): Promise<number> {
  return republishedCount((await readTopic(kafka, topic)).map((message) => envelopeOf(message)?.eventId));
}

/** Sum of (end offset − committed offset) over every partition each group reads. */
export function consumerLag(kafka: kafkajs.Kafka, namespace: string): Promise<Lag> {
  return whileLeadersMove(() => readConsumerLag(kafka, namespace));
}

async function readConsumerLag(kafka: kafkajs.Kafka, namespace: string): Promise<Lag> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const partitions = [];
    for (const [service, topics] of Object.entries(SUBSCRIPTIONS)) {
      for (const topic of topics) {
        const name = `${namespace}${topic}`;
        const ends = await admin.fetchTopicOffsets(name);
        const [committed] = await admin.fetchOffsets({ groupId: `${namespace}${service}`, topics: [name] });
        for (const end of ends) {
          const offset = committed.partitions.find((p) => p.partition === end.partition)?.offset ?? -1;
          partitions.push({ service, topic, partition: end.partition, low: Number(end.low), high: Number(end.high), committed: Number(offset) });
        }
      }
    }
    return partitionLag(partitions);
  } finally {
    await admin.disconnect();
  }
}

/** Every message on the dead-letter topics. */
export async function deadLetters(kafka: kafkajs.Kafka, namespace: string): Promise<DeadLetter[]> {
  const letters: DeadLetter[] = [];
  for (const topic of DEAD_LETTER_TOPICS) {
    for (const message of await readTopic(kafka, `${namespace}${topic}`)) {
      letters.push({ id: `${namespace}${topic}/${message.partition}/${message.offset}`, topic, eventId: envelopeOf(message)?.eventId });
    }
  }
  return letters;
}
