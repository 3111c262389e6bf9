import { InvalidEventError } from './invalid-event.error';
import { assertValid, compileSchema } from './validation';

/** What every event on every topic looks like on the wire (JSON, UTF-8). */
export interface EventEnvelope<TType extends string = string, TPayload = unknown> {
  /** Unique per event; consumers deduplicate on it. */
  eventId: string;
  type: TType;
  /** Version of the payload schema the producer wrote. */
  schemaVersion: number;
  /** ISO 8601 instant of the change that the event reports. */
  occurredAt: string;
  /** The service that published it. */
  producer: string;
  /** The request that started the chain (the gateway's request id); the first event's own id otherwise. */
  correlationId: string;
  /** The event whose handling produced this one; null when a request produced it. */
  causationId: string | null;
  /** Kafka message key: one pet's events share it, so they stay in order. */
  key: string;
  payload: TPayload;
}

export interface EventMeta {
  producer: string;
  correlationId?: string;
  causationId?: string;
  /** Defaults to now. */
  occurredAt?: Date;
}

/** Metadata for an event that a handler publishes in reaction to `cause`. */
export function causedBy(cause: EventEnvelope, producer: string): EventMeta {
  return { producer, correlationId: cause.correlationId, causationId: cause.eventId };
}

const ENVELOPE_FIELDS = [
  'eventId',
  'type',
  'schemaVersion',
  'occurredAt',
  'producer',
  'correlationId',
  'causationId',
  'key',
  'payload',
] as const;

/** The envelope without its payload's schema, which each event definition adds. */
export const envelopeSchema = {
  $id: 'https://petstore.local/schemas/event-envelope.json',
  type: 'object',
  required: [...ENVELOPE_FIELDS],
  additionalProperties: false,
  properties: {
    eventId: { type: 'string', format: 'uuid' },
    type: { type: 'string', minLength: 1, maxLength: 100 },
    schemaVersion: { type: 'integer', minimum: 1 },
    occurredAt: { type: 'string', format: 'date-time' },
    producer: { type: 'string', minLength: 1, maxLength: 100 },
    correlationId: { type: 'string', minLength: 1, maxLength: 200 },
    causationId: { type: ['string', 'null'], minLength: 1, maxLength: 200 },
    key: { type: 'string', minLength: 1, maxLength: 200 },
    payload: { type: 'object' },
  },
} as const;

const envelopeValidators = compileSchema<EventEnvelope<string, Record<string, unknown>>>(envelopeSchema);

export function validateEnvelope(value: unknown, strict: boolean): asserts value is EventEnvelope {
  assertValid(strict ? envelopeValidators.strict : envelopeValidators.tolerant, value, 'event envelope');
}

/**
 * Reads any event of the contract without knowing its type yet (consumers dispatch on
 * `type` afterwards). Accepts the raw message value (a string or bytes) or parsed JSON.
 */
export function parseEnvelope(input: unknown): EventEnvelope<string, Record<string, unknown>> {
  const value = decodeEvent(input);
  validateEnvelope(value, false);
  return value as EventEnvelope<string, Record<string, unknown>>;
}

/** The wire form, with the envelope's fields in their documented order. */
export function serializeEnvelope(envelope: EventEnvelope): string {
  const ordered: Record<string, unknown> = {};
  for (const field of ENVELOPE_FIELDS) ordered[field] = envelope[field];
  return JSON.stringify(ordered);
}

/** One decoder for every message: it keeps no state between whole-buffer decodes. */
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** A private copy: tolerant validation strips unknown fields in place. */
export function decodeEvent(input: unknown): unknown {
  if (typeof input === 'string' || input instanceof Uint8Array) {
    let text: string;
    try {
      text = typeof input === 'string' ? input : utf8.decode(input);
    } catch {
      throw new InvalidEventError('Event is not valid UTF-8');
    }
    try {
      return JSON.parse(text);
    } catch {
      throw new InvalidEventError('Event is not valid JSON');
    }
  }
  if (input === null || input === undefined) {
    throw new InvalidEventError('Event is empty');
  }
  return structuredClone(input);
}
