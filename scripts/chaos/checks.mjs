// The invariants checked after every scenario, from outside: through the API and on the topics.
import { randomBytes } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import '../../libs/kafka/src/request-queue-fix.cjs';
import stack from '../../tools/stack/stack.cjs';
import { sleep } from './processes.mjs';

/** Which topics each service's consumer group reads (from the services' event handlers). */
export const SUBSCRIPTIONS = {
  catalog: ['inventory.pet-status.v1'],
  orders: ['inventory.stock.v1', 'catalog.pet.v1'],
  inventory: ['orders.order.v1', 'catalog.pet.v1'],
};
export const DEAD_LETTER_TOPICS = Object.keys(SUBSCRIPTIONS).map((service) => `${service}.dead-letter.v1`);
const DECISIONS = new Set(['StockReserved', 'StockReservationRejected']);

/** As the administrator: the checks read every topic of the run, and the scenarios write poisoned events. */
export function chaosKafka(brokers, secretsDir) {
  return new Kafka({
    clientId: 'chaos-checks',
    brokers: brokers.split(','),
    ...stack.kafkaClientAuth(secretsDir, 'admin'),
    logLevel: logLevel.NOTHING,
    connectionTimeout: 2000,
    retry: { initialRetryTime: 200, maxRetryTime: 2000, retries: 10 },
  });
}

/**
 * `read` (admin reads of metadata and offsets, each with an admin of its own) again while a broker
 * answers that a partition's leadership has just moved: kafkajs's admin does not retry that
 * answer itself, and after a broker's restart the controller moves leaderships for a while.
 */
export async function whileLeadersMove(read) {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await read();
    } catch (error) {
      if (!error?.retriable || attempt >= 10) throw error;
      await sleep(500);
    }
  }
}

/** Every message of `topic` up to its end as it was when called (a fresh group, from the beginning). */
export async function readTopic(kafka, topic, timeoutMs = 60_000) {
  const ends = await whileLeadersMove(async () => {
    const admin = kafka.admin();
    await admin.connect();
    return admin.fetchTopicOffsets(topic).finally(() => admin.disconnect());
  });
  const remaining = new Map(ends.filter((p) => Number(p.high) > Number(p.low)).map((p) => [p.partition, Number(p.high)]));
  const messages = [];
  if (remaining.size === 0) return messages;
  const consumer = kafka.consumer({ groupId: `chaos-reader-${randomBytes(6).toString('hex')}`, maxWaitTimeInMs: 200 });
  await consumer.connect();
  try {
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    let done;
    const finished = new Promise((resolve) => (done = resolve));
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

export function envelopeOf(message) {
  try {
    return JSON.parse(message.value.toString('utf8'));
  } catch {
    return undefined;
  }
}

/**
 * The decisions of inventory on its topic, for the given orders: how many distinct decision events
 * each order has (an event with an effect twice would be a second one), and how many messages
 * were the same event delivered again (what the consumers absorb by event id). Events in `ignored`
 * (forged ones the consumers refused) are not counted.
 */
export async function decisionsOf(kafka, namespace, orderIds, ignored = new Set()) {
  const wanted = new Set(orderIds);
  const eventIdsByOrder = new Map();
  const seen = new Set();
  let redelivered = 0;
  for (const message of await readTopic(kafka, `${namespace}inventory.stock.v1`)) {
    const envelope = envelopeOf(message);
    if (!envelope || !DECISIONS.has(envelope.type) || !wanted.has(envelope.payload?.orderId) || ignored.has(envelope.eventId)) continue;
    if (seen.has(envelope.eventId)) {
      redelivered += 1;
      continue;
    }
    seen.add(envelope.eventId);
    const ids = eventIdsByOrder.get(envelope.payload.orderId) ?? [];
    ids.push({ eventId: envelope.eventId, type: envelope.type });
    eventIdsByOrder.set(envelope.payload.orderId, ids);
  }
  return { eventIdsByOrder, redelivered };
}

/** Messages published more than once under the same event id on `topic` (the relay's duplicates). */
export async function republishedOn(kafka, topic) {
  const seen = new Set();
  let again = 0;
  for (const message of await readTopic(kafka, topic)) {
    const eventId = envelopeOf(message)?.eventId;
    if (!eventId) continue;
    if (seen.has(eventId)) again += 1;
    seen.add(eventId);
  }
  return again;
}

/** Sum of (end offset − committed offset) over every partition each group reads. */
export function consumerLag(kafka, namespace) {
  return whileLeadersMove(() => readConsumerLag(kafka, namespace));
}

async function readConsumerLag(kafka, namespace) {
  const admin = kafka.admin();
  await admin.connect();
  try {
    let lag = 0;
    const stuck = [];
    for (const [service, topics] of Object.entries(SUBSCRIPTIONS)) {
      for (const topic of topics) {
        const name = `${namespace}${topic}`;
        const ends = await admin.fetchTopicOffsets(name);
        const [committed] = await admin.fetchOffsets({ groupId: `${namespace}${service}`, topics: [name] });
        for (const end of ends) {
          const offset = Number(committed.partitions.find((p) => p.partition === end.partition)?.offset ?? -1);
          const behind = Number(end.high) - (offset < 0 ? Number(end.low) : offset);
          if (behind > 0) stuck.push(`${service} ${topic}[${end.partition}] ${behind}`);
          lag += Math.max(behind, 0);
        }
      }
    }
    return { lag, stuck };
  } finally {
    await admin.disconnect();
  }
}

/** Every message on the dead-letter topics, with the event id it carried (when it had one). */
export async function deadLetters(kafka, namespace) {
  const letters = [];
  for (const topic of DEAD_LETTER_TOPICS) {
    for (const message of await readTopic(kafka, `${namespace}${topic}`)) {
      letters.push({ id: `${topic}/${message.partition}/${message.offset}`, topic, eventId: envelopeOf(message)?.eventId });
    }
  }
  return letters;
}
