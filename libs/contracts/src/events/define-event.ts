import { randomUUID } from 'node:crypto';
import type { JSONSchemaType } from 'ajv';
import { decodeEvent, validateEnvelope, type EventEnvelope, type EventMeta } from './envelope';
import { InvalidEventError } from './invalid-event.error';
import type { Topic } from './topics';
import { assertValid, compileSchema } from './validation';

export interface EventDefinition<TType extends string = string, TPayload = unknown> {
  readonly type: TType;
  /** Un-namespaced topic the event is published on. */
  readonly topic: Topic;
  readonly schemaVersion: number;
  /** JSON Schema of the payload (draft 2020-12 subset that ajv 8 reads). */
  readonly payloadSchema: object;
  /** A new envelope for this payload, validated strictly. Throws InvalidEventError. */
  create(payload: TPayload, meta: EventMeta): EventEnvelope<TType, TPayload>;
  /** A received message (raw value or parsed JSON) read tolerantly. Throws InvalidEventError. */
  parse(input: unknown): EventEnvelope<TType, TPayload>;
  /** Narrows an envelope of unknown type to this event (by `type`, without validating). */
  is(envelope: EventEnvelope): envelope is EventEnvelope<TType, TPayload>;
  /** The Kafka key: every event of one pet shares it. */
  key(payload: TPayload): string;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyEventDefinition = EventDefinition<string, any>;
export type EnvelopeOf<D> = D extends EventDefinition<infer T, infer P> ? EventEnvelope<T, P> : never;
export type PayloadOf<D> = D extends EventDefinition<string, infer P> ? P : never;

export interface EventSpec<TType extends string, TPayload> {
  type: TType;
  topic: Topic;
  schemaVersion: number;
  schema: JSONSchemaType<TPayload>;
  key(payload: TPayload): string | number;
}

export function defineEvent<TType extends string, TPayload>(
  spec: EventSpec<TType, TPayload>,
): EventDefinition<TType, TPayload> {
  const validators = compileSchema<TPayload>(spec.schema);
  const key = (payload: TPayload): string => String(spec.key(payload));

  return Object.freeze({
    type: spec.type,
    topic: spec.topic,
    schemaVersion: spec.schemaVersion,
    payloadSchema: spec.schema,

    create(payload: TPayload, meta: EventMeta): EventEnvelope<TType, TPayload> {
      // What gets validated is exactly what gets serialised (no undefined, Dates as strings).
      const json: unknown = JSON.parse(JSON.stringify(payload ?? null));
      assertValid(validators.strict, json, `${spec.type} payload`, spec.type);
      const eventId = randomUUID();
      const envelope: EventEnvelope<TType, TPayload> = {
        eventId,
        type: spec.type,
        schemaVersion: spec.schemaVersion,
        occurredAt: (meta.occurredAt ?? new Date()).toISOString(),
        producer: meta.producer,
        correlationId: meta.correlationId ?? eventId,
        causationId: meta.causationId ?? null,
        key: key(json),
        payload: json,
      };
      validateEnvelope(envelope, true);
      return envelope;
    },

    parse(input: unknown): EventEnvelope<TType, TPayload> {
      const value = decodeEvent(input);
      validateEnvelope(value, false);
      if (value.type !== spec.type) {
        throw new InvalidEventError(`Expected a ${spec.type} event, got ${value.type}`, [], value.type);
      }
      assertValid(validators.tolerant, value.payload, `${spec.type} payload`, spec.type);
      const envelope = value as EventEnvelope<TType, TPayload>;
      if (envelope.key !== key(envelope.payload)) {
        throw new InvalidEventError(`${spec.type} key ${envelope.key} does not match its payload`, [], spec.type);
      }
      return envelope;
    },

    is(envelope: EventEnvelope): envelope is EventEnvelope<TType, TPayload> {
      return envelope.type === spec.type;
    },

    key,
  });
}
