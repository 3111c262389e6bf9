import { randomUUID } from 'node:crypto';
import type { JSONSchemaType } from 'ajv';
import { parseEnvelope, validateEnvelope, type EventEnvelope, type EventMeta } from './envelope';
import { InvalidEventError } from './invalid-event.error';
import type { Topic } from './topics';
import { assertValid, compileSchema } from './validation';

/** A JSON pointer into the payload, e.g. `/pet/id`. */
export type PayloadPointer = `/${string}`;

/** A schema version consumers still read, and how its payload becomes the current shape. */
export interface PreviousVersion {
  readonly schemaVersion: number;
  readonly schema: object;
  /** The previous payload in the current shape; without it the payload is taken as it is. */
  readonly upgrade?: (payload: unknown) => unknown;
}

export interface EventDefinition<TType extends string = string, TPayload = unknown> {
  readonly type: TType;
  /** What happened, in one sentence (the published document's summary). */
  readonly summary: string;
  /** Un-namespaced topic the event is published on. */
  readonly topic: Topic;
  /** The version `create` writes. */
  readonly schemaVersion: number;
  /** JSON Schema of the payload at `schemaVersion` (draft-07 keywords that ajv 8 reads). */
  readonly payloadSchema: object;
  /** The version before, which `parse` still reads; absent at version 1 and once it is retired. */
  readonly previous?: PreviousVersion;
  /** Where in the payload the Kafka key comes from: every event of one pet shares it. */
  readonly keyPointer: PayloadPointer;
  /** A valid payload, for the published document. */
  readonly example: TPayload;
  /** A new envelope for this payload, validated strictly. Throws InvalidEventError. */
  create(payload: TPayload, meta: EventMeta): EventEnvelope<TType, TPayload>;
  /**
   * A received message (raw value or parsed JSON) read tolerantly, against the schema of the
   * version its envelope names; a previous version's payload comes back in the current shape.
   * Throws InvalidEventError.
   */
  parse(input: unknown): EventEnvelope<TType, TPayload>;
  /**
   * `parse` for an envelope that `parseEnvelope` has read already (a consumer dispatching on its
   * `type`): the payload is read against its version's schema, without decoding, copying or
   * checking the envelope again. Throws InvalidEventError.
   */
  read(envelope: EventEnvelope<string, Record<string, unknown>>): EventEnvelope<TType, TPayload>;
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
  summary: string;
  topic: Topic;
  schemaVersion: number;
  schema: JSONSchemaType<TPayload>;
  key: PayloadPointer;
  example: TPayload;
  /** Set while producers of the version before may still be running (see docs/ARCHITECTURE.md, Evolving an event). */
  previous?: PreviousVersion & { upgrade?(payload: unknown): TPayload };
}

export function defineEvent<TType extends string, TPayload>(
  spec: EventSpec<TType, TPayload>,
): EventDefinition<TType, TPayload> {
  const validators = compileSchema<TPayload>(spec.schema);
  const previous = spec.previous;
  const previousValidators = previous && compileSchema<unknown>(previous.schema);
  if (previous && previous.schemaVersion !== spec.schemaVersion - 1) {
    throw new Error(`${spec.type}: the previous version of ${spec.schemaVersion} is ${spec.schemaVersion - 1}`);
  }
  const key = (payload: TPayload): string => String(valueAt(payload, spec.key));
  const oldestRead = previous?.schemaVersion ?? spec.schemaVersion;

  /** The payload as this version of the contract reads it. */
  function readPayload(schemaVersion: number, payload: unknown): TPayload {
    if (schemaVersion < oldestRead) {
      throw new InvalidEventError(
        `${spec.type} schema version ${schemaVersion} is no longer read (oldest read: ${oldestRead})`,
        [],
        spec.type,
      );
    }
    if (previous && previousValidators && schemaVersion === previous.schemaVersion) {
      assertValid(previousValidators.tolerant, payload, `${spec.type} v${schemaVersion} payload`, spec.type);
      return (previous.upgrade ? previous.upgrade(payload) : payload) as TPayload;
    }
    // A newer version than this contract knows is read with the current schema: the schema decides.
    assertValid(validators.tolerant, payload, `${spec.type} payload`, spec.type);
    return payload;
  }

  /** An envelope already decoded and checked, read as this event. */
  function read(value: EventEnvelope<string, Record<string, unknown>>): EventEnvelope<TType, TPayload> {
    if (value.type !== spec.type) {
      throw new InvalidEventError(`Expected a ${spec.type} event, got ${value.type}`, [], value.type);
    }
    const envelope = { ...value, payload: readPayload(value.schemaVersion, value.payload) } as EventEnvelope<TType, TPayload>;
    if (envelope.key !== key(envelope.payload)) {
      throw new InvalidEventError(`${spec.type} key ${envelope.key} does not match its payload`, [], spec.type);
    }
    return envelope;
  }

  return Object.freeze({
    type: spec.type,
    summary: spec.summary,
    topic: spec.topic,
    schemaVersion: spec.schemaVersion,
    payloadSchema: spec.schema,
    previous: previous && Object.freeze({ ...previous }),
    keyPointer: spec.key,
    example: spec.example,

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
      return read(parseEnvelope(input));
    },

    read,

    is(envelope: EventEnvelope): envelope is EventEnvelope<TType, TPayload> {
      return envelope.type === spec.type;
    },

    key,
  });
}

/** The value a JSON pointer names (RFC 6901; ids and keys hold no `~` or `/`). */
export function valueAt(value: unknown, pointer: PayloadPointer): unknown {
  let current = value;
  for (const part of pointer.slice(1).split('/')) {
    current = current !== null && typeof current === 'object' ? (current as Record<string, unknown>)[part] : undefined;
  }
  return current;
}
