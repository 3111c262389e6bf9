import { randomUUID } from 'node:crypto';
import type { IHeaders, Kafka, Message } from 'kafkajs';
import { DEAD_LETTER_HEADERS, REPLAYED_FOR_GROUP_HEADER, decodeHeaders } from './consumer-runner';
import { createIdempotentProducer } from './producer';

/**
 * Headers by which a producer numbers its events for deduplication (the outbox relay: its source
 * and publication number; consumers drop a number at or below the highest they applied). A
 * replay drops them: the consumer has moved past that number, so a numbered replay would be
 * discarded as a copy; without them it is deduplicated by event id, so it takes effect once
 * however often it is replayed.
 */
export const PUBLICATION_NUMBER_HEADERS = { source: 'outbox-source', seq: 'outbox-seq' } as const;

/**
 * Operator tools for one dead-letter topic: list, show, replay, purge.
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
    const [ends, [committed]] = await Promise.all([
      admin.fetchTopicOffsets(topic),
      admin.fetchOffsets({ groupId: toolsGroupId, topics: [topic] }),
    ]);
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
    eventId: headers['event-id'] ?? envelope.eventId,
    eventType: headers['event-type'] ?? envelope.type,
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

const USAGE = `Usage: dlt <command> [--json]
  list                 the dead-lettered events not purged yet
  show <selector>      one entry in full: headers and value
  replay <selector>... publish entries again to their original topic (or --all)
  purge                mark every listed entry as handled; they are no longer listed
A selector is <partition>:<offset>, an event id, or an offset that only one partition has.`;

/**
 * `dlt list | show <selector> | replay <selector>... | replay --all | purge`, with `--json` for
 * scripts. Writes to `out`, returns the process exit code.
 */
export async function runDeadLetterCommand(
  tools: DeadLetterTools,
  args: string[],
  out: { write(text: string): unknown },
  err: { write(text: string): unknown } = out,
): Promise<number> {
  const json = args.includes('--json');
  const all = args.includes('--all');
  const [command, ...selectors] = args.filter((arg) => arg !== '--json' && arg !== '--all');
  const print = (human: string, data: unknown) =>
    out.write(json ? `${JSON.stringify(data, null, 2)}\n` : human.endsWith('\n') ? human : `${human}\n`);
  try {
    switch (command) {
      case 'list': {
        const letters = await readDeadLetters(tools);
        // Scripts get the whole entry, so they can filter on the event itself (jq '.value | fromjson').
        print(table(tools.topic, letters), letters.map(detailed));
        return 0;
      }
      case 'show': {
        if (selectors.length !== 1) break;
        const [letter] = selectDeadLetters(await readDeadLetters(tools), selectors);
        print(details(letter), detailed(letter));
        return 0;
      }
      case 'replay': {
        if (all === selectors.length > 0) break;
        const letters = await readDeadLetters(tools);
        const chosen = all ? letters : selectDeadLetters(letters, selectors);
        const replayed = await replayDeadLetters(tools, chosen);
        print(
          replayed.length === 0
            ? 'Nothing to replay.'
            : replayed
                .map(
                  (one) =>
                    `replayed ${one.letter.partition}:${one.letter.offset} (${one.letter.eventType ?? '?'} ${one.letter.eventId ?? '?'}) ` +
                    `→ ${one.topic}[${one.partition}]@${one.offset}`,
                )
                .join('\n'),
          replayed.map((one) => ({ ...summary(one.letter), replayedTo: { topic: one.topic, partition: one.partition, offset: one.offset } })),
        );
        return 0;
      }
      case 'purge': {
        if (selectors.length > 0) break;
        const letters = await readDeadLetters(tools);
        await purgeDeadLetters(tools, letters);
        print(
          `purged ${letters.length} dead letter(s) from ${tools.topic}` +
            letters.map((one) => `\n  ${one.partition}:${one.offset} ${one.eventType ?? '?'} ${one.eventId ?? '?'}`).join(''),
          { purged: letters.map(summary) },
        );
        return 0;
      }
    }
  } catch (error) {
    err.write(`dlt ${command}: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
  err.write(`${USAGE}\n`);
  return 2;
}

function summary(letter: DeadLetter) {
  return {
    partition: letter.partition,
    offset: letter.offset,
    eventType: letter.eventType ?? null,
    eventId: letter.eventId ?? null,
    key: letter.key?.toString('utf8') ?? null,
    originalTopic: letter.originalTopic,
    originalPartition: letter.originalPartition,
    originalOffset: letter.originalOffset,
    consumerGroup: letter.consumerGroup,
    attempts: letter.attempts,
    errorName: letter.errorName,
    error: letter.error,
    failedAt: letter.failedAt,
  };
}

function detailed(letter: DeadLetter) {
  return { ...summary(letter), headers: letter.headers, value: letter.value?.toString('utf8') ?? null };
}

function table(topic: string, letters: DeadLetter[]): string {
  if (letters.length === 0) return `${topic}: no dead letters.`;
  const rows = letters.map((one) => [
    `${one.partition}:${one.offset}`,
    one.failedAt,
    one.eventType ?? '?',
    one.eventId ?? '?',
    `${one.originalTopic}[${one.originalPartition}]@${one.originalOffset}`,
    String(one.attempts),
    oneLine(`${one.errorName}: ${one.error}`, 80),
  ]);
  const header = ['AT', 'FAILED', 'TYPE', 'EVENT ID', 'FROM', 'ATTEMPTS', 'ERROR'];
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column].length)));
  const line = (cells: string[]) => cells.map((cell, column) => cell.padEnd(widths[column])).join('  ').trimEnd();
  return [`${topic}: ${letters.length} dead letter(s)`, line(header), ...rows.map(line)].join('\n');
}

function details(letter: DeadLetter): string {
  const fields = Object.entries(summary(letter)).map(([name, value]) => `${name}: ${value ?? ''}`);
  const headers = Object.entries(letter.headers).map(([name, value]) => `  ${name}: ${value}`);
  return [...fields, 'headers:', ...headers, 'value:', prettyValue(letter.value)].join('\n');
}

function prettyValue(value: Buffer | null): string {
  if (!value) return '(none)';
  const text = value.toString('utf8');
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ');
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
