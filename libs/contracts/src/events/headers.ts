/**
 * The Kafka headers of the contract. The outbox relay (libs/messaging) sets the event headers on
 * every event it publishes; a consumer (libs/kafka) that gives up on a message copies it, with its
 * headers, to its dead-letter topic and adds the dead-letter headers. Values are UTF-8 strings.
 * The names are written here only: libs/kafka keys them for the code that sets and reads them.
 */
export interface HeaderContract {
  readonly name: string;
  readonly description: string;
  /** Always present on a message of its kind. */
  readonly always: boolean;
  /** What the value looks like, as a regular expression. */
  readonly pattern?: string;
}

const W3C_TRACE = 'https://www.w3.org/TR/trace-context/';

/** On every event the outbox relay publishes. */
export const EventHeaders = {
  type: {
    name: 'event-type',
    description: 'The envelope\'s `type`: a consumer skips the types it does not handle without reading the value.',
    always: true,
    pattern: '^[A-Za-z]+$',
  },
  id: { name: 'event-id', description: 'The envelope\'s `eventId`.', always: true, pattern: '^[0-9a-f-]{36}$' },
  publicationSource: {
    name: 'outbox-source',
    description:
      'The outbox the event was published from: a UUID, one per service database. With `outbox-seq` it numbers the event: ' +
      'a consumer drops a number at or below the highest it applied for that source and partition. ' +
      'Absent on a replayed event, which is deduplicated by its event id instead.',
    always: false,
    pattern: '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$',
  },
  publicationSeq: {
    name: 'outbox-seq',
    description: 'The publication number within `outbox-source`, increasing in the order the outbox published.',
    always: false,
    pattern: '^[0-9]{1,15}$',
  },
  traceparent: {
    name: 'traceparent',
    description: `W3C trace context (${W3C_TRACE}) of the publish; the consumer's span is its child. Absent when nothing traces.`,
    always: false,
    pattern: '^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$',
  },
  tracestate: { name: 'tracestate', description: `W3C trace state (${W3C_TRACE}), when the trace has one.`, always: false },
} as const satisfies Record<string, HeaderContract>;

/** How much of the last error's message a dead-letter copy keeps. */
export const DEAD_LETTER_ERROR_MAX_LENGTH = 2000;

/** Added to a message copied to a dead-letter topic, next to its original headers. */
export const DeadLetterHeaders = {
  topic: { name: 'dead-letter-original-topic', description: 'The topic the message was read from (namespaced).', always: true },
  partition: {
    name: 'dead-letter-original-partition',
    description: 'Its partition there.',
    always: true,
    pattern: '^[0-9]+$',
  },
  offset: { name: 'dead-letter-original-offset', description: 'Its offset there.', always: true, pattern: '^[0-9]+$' },
  group: {
    name: 'dead-letter-consumer-group',
    description: 'The consumer group that gave up on it: a replay is addressed to this group only.',
    always: true,
  },
  attempts: {
    name: 'dead-letter-attempts',
    description: 'How often the handler was tried (1 for a message no retry can fix, such as one its schema rejects).',
    always: true,
    pattern: '^[0-9]+$',
  },
  error: {
    name: 'dead-letter-error',
    description: `The last error's message (at most ${DEAD_LETTER_ERROR_MAX_LENGTH} characters).`,
    always: true,
  },
  errorName: {
    name: 'dead-letter-error-name',
    description: 'The last error\'s name; `NonRetriableError` for a message that is not a valid event of the contract.',
    always: true,
  },
  failedAt: {
    name: 'dead-letter-failed-at',
    description: 'When the consumer gave up (ISO 8601).',
    always: true,
  },
} as const satisfies Record<string, HeaderContract>;

/** On an event replayed from a dead-letter topic (`main.js dlt replay`), instead of the publication number. */
export const ReplayHeaders = {
  replayedForGroup: {
    name: 'replayed-for-group',
    description:
      'The consumer group the replay is for; every other group of the topic handled the original already and skips it.',
    always: false,
  },
} as const satisfies Record<string, HeaderContract>;

/** Every header the contract names. */
export function contractHeaders(): HeaderContract[] {
  return [...Object.values(EventHeaders), ...Object.values(DeadLetterHeaders), ...Object.values(ReplayHeaders)];
}
