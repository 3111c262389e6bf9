import type { IHeaders } from 'kafkajs';

/** Set by the producer of every event: what it is, without parsing the value. */
export const EVENT_HEADERS = { type: 'event-type', id: 'event-id' } as const;

/**
 * Headers by which a producer numbers its events for deduplication (the outbox relay: its source
 * and publication number; consumers drop a number at or below the highest they applied). A
 * replay drops them: the consumer has moved past that number, so a numbered replay would be
 * discarded as a copy; without them it is deduplicated by event id, so it takes effect once
 * however often it is replayed.
 */
export const PUBLICATION_NUMBER_HEADERS = { source: 'outbox-source', seq: 'outbox-seq' } as const;

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

/** Header values decoded as UTF-8 (the first one when a header repeats). */
export function decodeHeaders(headers: IHeaders | undefined): Record<string, string> {
  const decoded: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    const first = Array.isArray(value) ? value[0] : value;
    if (first !== undefined) decoded[name] = first.toString();
  }
  return decoded;
}
