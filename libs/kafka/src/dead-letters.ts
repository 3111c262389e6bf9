import { randomUUID } from 'node:crypto';
import type { IHeaders, Kafka, Message } from 'kafkajs';
import {
  DEAD_LETTER_HEADERS,
  EVENT_HEADERS,
  PUBLICATION_NUMBER_HEADERS,
  REPLAYED_FOR_GROUP_HEADER,
  decodeHeaders,
} from './headers';
import { createIdempotentProducer } from './producer';

/**
 * Operator tools for one dead-letter topic: list, show, replay, purge (the `dlt` command in
 * dead-letter-cli.ts puts them on a terminal).
 *
 * Kafka cannot delete one message, so "purged" means "below the committed offset of the tools'
 * own consumer group" (`<service>.dead-letter-tools`): nothing consumes with that group, the
 * tools only read and move its offsets, so a purge hides entries without losing them before the
 * topic's retention (a mistaken purge is undone by resetting that group's offsets).
 */
export interface DeadLetterTools {
  kafka: Kafka;
  /** The dead-letter topic (namespaced). */
  topic: string;
  /** The group whose committed offsets mark what was purged (namespaced). */
  toolsGroupId: string;
  /** How long reading the topic may take (default 30 s). */
  readTimeoutMs?: number;
}

/** One entry of the dead-letter topic. */
export interface DeadLetter {
  partition: number;
  offset: string;
  key: Buffer | null;
  value: Buffer | null;
  /** As stored, for a byte-exact replay. */
  rawHeaders: IHeaders;
  headers: Record<string, string>;
  eventId?: string;
  eventType?: string;
  originalTopic: string;
  originalPartition: number;
  originalOffset: string;
  consumerGroup: string;
  attempts: number;
  error: string;
  errorName: string;
  failedAt: string;
}

/** The entries not purged yet, in partition and offset order. */
export async function readDeadLetters(tools: DeadLetterTools): Promise<DeadLetter[]> {
  const { kafka, topic, toolsGroupId, readTimeoutMs = 30_000 } = tools;
  const admin = kafka.admin();
  await admin.connect();
  const ranges: { partition: number; start: number; end: number }[] = [];
  const readerGroupId = `${toolsGroupId}.reader-${randomUUID()}`;
  try {
    if (!(await admin.listTopics()).includes(topic)) {
      throw new Error(`${topic} does not exist yet: the service creates it when it first starts`);
    }
    // Both settle before the admin disconnects: a request still retrying (say, the offsets while
    // the group is refused) would otherwise reconnect the client after it, and hold its caller open.
    const [endsAnswer, committedAnswer] = await Promise.allSettled([
      admin.fetchTopicOffsets(topic),
      admin.fetchOffsets({ groupId: toolsGroupId, topics: [topic] }),
    ]);
    if (endsAnswer.status === 'rejected') throw endsAnswer.reason;
    if (committedAnswer.status === 'rejected') throw committedAnswer.reason;
    const ends = endsAnswer.value;
    const [committed] = committedAnswer.value;
    for (const { partition, low, high } of ends) {
      const purgedUpTo = Number(committed?.partitions.find((one) => one.partition === partition)?.offset ?? -1);
      const start = Math.max(Number(low), purgedUpTo);
      if (start < Number(high)) ranges.push({ partition, start, end: Number(high) });
    }
    if (ranges.length === 0) return [];
  } finally {
    await admin.disconnect();
  }

  // A throwaway reader group that commits nothing (an empty group without offsets is dropped by
  // the broker), sent to the start of each unpurged range.
  const found: DeadLetter[] = [];
  const consumer = kafka.consumer({ groupId: readerGroupId, maxWaitTimeInMs: 100, allowAutoTopicCreation: false });
  await consumer.connect();
  try {
    const pending = new Map(ranges.map((range) => [range.partition, range]));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`Reading ${topic} took longer than ${readTimeoutMs} ms`)),
        readTimeoutMs,
      );
      consumer
        .subscribe({ topics: [topic], fromBeginning: true })
        .then(() =>
          consumer.run({
            autoCommit: false,
            eachBatch: async ({ batch }) => {
              const range = pending.get(batch.partition);
              if (!range) return;
              for (const message of batch.messages) {
                const offset = Number(message.offset);
                if (offset >= range.start && offset < range.end) {
                  found.push(toDeadLetter(batch.partition, message.offset, message));
                }
              }
              if (Number(batch.lastOffset()) >= range.end - 1) pending.delete(batch.partition);
              if (pending.size === 0) {
                clearTimeout(timer);
                resolve();
              }
            },
          }),
        )
        .then(() => {
          for (const { partition, start } of ranges) consumer.seek({ topic, partition, offset: String(start) });
        })
        .catch((error: unknown) => {
          clearTimeout(timer);
          reject(error);
        });
    });
  } finally {
    await consumer.disconnect();
  }
  return found.sort((a, b) => a.partition - b.partition || Number(a.offset) - Number(b.offset));
}

function toDeadLetter(
  partition: number,
  offset: string,
  message: { key: Buffer | null; value: Buffer | null; headers?: IHeaders },
): DeadLetter {
  const rawHeaders = message.headers ?? {};
  const headers = decodeHeaders(rawHeaders);
  const envelope = envelopeOf(message.value);
  return {
    partition,
    offset,
    key: message.key,
    value: message.value,
    rawHeaders,
    headers,
    // The relay sets both headers; an event published otherwise still names them in its envelope.
    eventId: headers[EVENT_HEADERS.id] ?? envelope.eventId,
    eventType: headers[EVENT_HEADERS.type] ?? envelope.type,
    originalTopic: headers[DEAD_LETTER_HEADERS.topic] ?? '',
    originalPartition: Number(headers[DEAD_LETTER_HEADERS.partition] ?? -1),
    originalOffset: headers[DEAD_LETTER_HEADERS.offset] ?? '',
    consumerGroup: headers[DEAD_LETTER_HEADERS.group] ?? '',
    attempts: Number(headers[DEAD_LETTER_HEADERS.attempts] ?? 0),
    error: headers[DEAD_LETTER_HEADERS.error] ?? '',
    errorName: headers[DEAD_LETTER_HEADERS.errorName] ?? '',
    failedAt: headers[DEAD_LETTER_HEADERS.failedAt] ?? '',
  };
}

function envelopeOf(value: Buffer | null): { eventId?: string; type?: string } {
  try {
    const parsed: unknown = JSON.parse(value?.toString('utf8') ?? '');
    if (typeof parsed !== 'object' || parsed === null) return {};
    const { eventId, type } = parsed as Record<string, unknown>;
    return {
      eventId: typeof eventId === 'string' ? eventId : undefined,
      type: typeof type === 'string' ? type : undefined,
    };
  } catch {
    return {};
  }
}

/**
 * The entries a selector names: `<partition>:<offset>`, an event id, or a bare offset when only
 * one partition has it. Throws for a selector that names nothing or is ambiguous.
 */
export function selectDeadLetters(letters: DeadLetter[], selectors: string[]): DeadLetter[] {
  const chosen = new Set<DeadLetter>();
  for (const selector of selectors) {
    const position = /^(\d+):(\d+)$/.exec(selector);
    const matches = position
      ? letters.filter((one) => one.partition === Number(position[1]) && one.offset === position[2])
      : /^\d+$/.test(selector)
        ? letters.filter((one) => one.offset === selector)
        : letters.filter((one) => one.eventId?.toLowerCase() === selector.toLowerCase());
    if (matches.length === 0) throw new Error(`No dead letter matches "${selector}" (see \`dlt list\`)`);
    if (matches.length > 1 && /^\d+$/.test(selector)) {
      const where = matches.map((one) => `${one.partition}:${one.offset}`).join(', ');
      throw new Error(`Offset ${selector} is in several partitions (${where}): use <partition>:<offset>`);
    }
    for (const match of matches) chosen.add(match);
  }
  return letters.filter((one) => chosen.has(one));
}

/**
 * The message as its producer sent it (key, value and original headers, byte for byte), minus
 * what the dead-lettering added and the numbering headers, addressed to the consumer group that
 * dead-lettered it: other groups of the original topic handled the original already and skip it.
 */
export function replayMessage(letter: DeadLetter): Message & { partition: number } {
  const dropped = new Set<string>([...Object.values(DEAD_LETTER_HEADERS), ...Object.values(PUBLICATION_NUMBER_HEADERS)]);
  const headers: IHeaders = {};
  for (const [name, value] of Object.entries(letter.rawHeaders)) {
    if (!dropped.has(name) && name !== REPLAYED_FOR_GROUP_HEADER && value !== undefined) headers[name] = value;
  }
  headers[REPLAYED_FOR_GROUP_HEADER] = letter.consumerGroup;
  return { partition: letter.originalPartition, key: letter.key, value: letter.value, headers };
}

export interface Replayed {
  letter: DeadLetter;
  topic: string;
  partition: number;
  offset: string;
}

/** Publishes each entry again to its original topic and partition, in the given order. */
export async function replayDeadLetters(tools: DeadLetterTools, letters: DeadLetter[]): Promise<Replayed[]> {
  if (letters.length === 0) return [];
  for (const letter of letters) {
    if (!letter.originalTopic || letter.originalPartition < 0 || !letter.consumerGroup) {
      throw new Error(`${letter.partition}:${letter.offset} lacks its dead-letter headers; it cannot be replayed`);
    }
  }
  const producer = createIdempotentProducer(tools.kafka);
  await producer.connect();
  const replayed: Replayed[] = [];
  try {
    for (const letter of letters) {
      const message = replayMessage(letter);
      const [metadata] = await producer.send({ topic: letter.originalTopic, acks: -1, messages: [message] });
      replayed.push({ letter, topic: letter.originalTopic, partition: message.partition, offset: metadata.baseOffset ?? '?' });
    }
  } finally {
    await producer.disconnect();
  }
  return replayed;
}

/** Marks the given entries, and everything before them in their partitions, as purged. */
export async function purgeDeadLetters(tools: DeadLetterTools, letters: DeadLetter[]): Promise<void> {
  const next = new Map<number, number>();
  for (const { partition, offset } of letters) {
    next.set(partition, Math.max(next.get(partition) ?? 0, Number(offset) + 1));
  }
  if (next.size === 0) return;
  const admin = tools.kafka.admin();
  await admin.connect();
  try {
    await admin.setOffsets({
      groupId: tools.toolsGroupId,
      topic: tools.topic,
      partitions: [...next].map(([partition, offset]) => ({ partition, offset: String(offset) })),
    });
  } finally {
    await admin.disconnect();
  }
}
