import type { AnyEventDefinition } from '../events/define-event';
import { envelopeSchema, serializeEnvelope, type EventEnvelope } from '../events/envelope';
import { DeadLetterHeaders, EventHeaders, ReplayHeaders, type HeaderContract } from '../events/headers';
import { EVENT_DEFINITIONS } from '../events/registry';
import { EVENT_SERVICES } from '../events/services';
import { CONSUMING_SERVICES, Topics } from '../events/topics';
import { DEAD_LETTER, KAFKA_BINDING, previousMessageId, ref, type AsyncApiMessage, type JsonSchema } from './asyncapi-model';

/* The messages of the document: each event's envelope, headers, key and a worked example, and the dead letter. */

export function eventMessage(definition: AnyEventDefinition, version: 'current' | 'previous'): AsyncApiMessage {
  const previous = version === 'previous' ? definition.previous : undefined;
  const schemaVersion = previous?.schemaVersion ?? definition.schemaVersion;
  const payloadSchema = previous?.schema ?? definition.payloadSchema;
  const name = previous ? (previousMessageId(definition) as string) : definition.type;
  const example = previous ? previousExample(definition) : definition.example;
  const envelope = exampleEnvelope(definition, schemaVersion, example);
  return {
    name,
    title: previous ? `${definition.type} (schema version ${schemaVersion}, still read)` : definition.type,
    summary: definition.summary,
    description: previous
      ? `What producers of ${definition.type} wrote before schema version ${definition.schemaVersion}. Consumers ` +
        'still accept it, so a producer one version behind keeps working during a rolling deploy; they read its ' +
        'payload in the current shape.'
      : `Schema version ${definition.schemaVersion}.` +
        (definition.previous ? ` Consumers also read version ${definition.previous.schemaVersion} (${previousMessageId(definition)}).` : ''),
    contentType: 'application/json',
    headers: headersSchema(Object.values(EventHeaders), ReplayHeaders),
    payload: envelopeSchemaOf(definition.type, schemaVersion, payloadSchema),
    correlationId: ref('#/components/correlationIds/correlationId'),
    bindings: { kafka: { key: keySchema(definition), bindingVersion: KAFKA_BINDING } },
    examples: [
      {
        name: previous ? `${definition.type}-v${schemaVersion}` : definition.type,
        summary: definition.summary,
        headers: exampleHeaders(envelope),
        payload: JSON.parse(serializeEnvelope(envelope)) as unknown,
      },
    ],
  };
}

/** The current example without what the previous version did not have. */
function previousExample(definition: AnyEventDefinition): unknown {
  const schema = definition.previous?.schema as { properties?: Record<string, unknown> };
  const known = new Set(Object.keys(schema.properties ?? {}));
  return Object.fromEntries(Object.entries(definition.example as object).filter(([field]) => known.has(field)));
}

export function deadLetterMessage(): AsyncApiMessage {
  const original = exampleEnvelope(EVENT_DEFINITIONS[0], EVENT_DEFINITIONS[0].schemaVersion, EVENT_DEFINITIONS[0].example);
  const originalHeaders = exampleHeaders(original);
  return {
    name: DEAD_LETTER,
    title: 'A message a consumer gave up on',
    summary: 'The original message, byte for byte, with its original key and headers and the dead-letter headers.',
    description:
      'The value is what was read: usually an event envelope of one of the channel messages, but possibly not an ' +
      'event at all (that may be why it is here). Replaying it (`dlt replay`) publishes it again to its original ' +
      'topic and partition for the consumer group that gave up on it.',
    contentType: 'application/json',
    headers: headersSchema(Object.values(DeadLetterHeaders), { ...EventHeaders, ...ReplayHeaders }),
    payload: {
      description: 'The original message value (an event envelope when it was one).',
    },
    bindings: {
      kafka: { key: { type: 'string', description: 'The original key (a pet id for every event).' }, bindingVersion: KAFKA_BINDING },
    },
    examples: [
      {
        name: 'dead-lettered',
        summary: `A ${original.type} whose handler failed five times in a row.`,
        headers: {
          ...originalHeaders,
          [DeadLetterHeaders.topic.name]: Topics.catalogPet,
          [DeadLetterHeaders.partition.name]: '4',
          [DeadLetterHeaders.offset.name]: '1017',
          [DeadLetterHeaders.group.name]: 'inventory',
          [DeadLetterHeaders.attempts.name]: '5',
          [DeadLetterHeaders.error.name]: 'Connection terminated unexpectedly',
          [DeadLetterHeaders.errorName.name]: 'Error',
          [DeadLetterHeaders.failedAt.name]: '2026-11-26T10:15:32.118Z',
        },
        payload: JSON.parse(serializeEnvelope(original)) as unknown,
      },
    ],
  };
}

/** The envelope of one event type and schema version, its payload's schema inside. */
function envelopeSchemaOf(type: string, schemaVersion: number, payloadSchema: object): JsonSchema {
  const { $id: _id, ...envelope } = envelopeSchema;
  return {
    ...envelope,
    title: `${type} envelope`,
    properties: {
      ...envelope.properties,
      type: { type: 'string', const: type },
      schemaVersion: {
        type: 'integer',
        const: schemaVersion,
        description: 'The version of the payload schema the producer wrote.',
      },
      key: { ...envelope.properties.key, description: 'The Kafka key: the pet id.' },
      payload: payloadSchema,
    },
  };
}

/** `own`: the headers of this kind of message; `others`: headers it may also carry (a replay's, or those of the message a dead letter copies), never required. */
function headersSchema(own: HeaderContract[], others: Record<string, HeaderContract>): JsonSchema {
  const all = [...own, ...Object.values(others)];
  return {
    type: 'object',
    description: 'Kafka headers (UTF-8 strings). Other headers may be present and are ignored.',
    required: own.filter((header) => header.always).map((header) => header.name),
    properties: Object.fromEntries(
      all.map((header) => [
        header.name,
        { type: 'string', description: header.description, ...(header.pattern ? { pattern: header.pattern } : {}) },
      ]),
    ),
  };
}

function keySchema(definition: AnyEventDefinition): JsonSchema {
  return {
    type: 'string',
    pattern: '^[1-9][0-9]*$',
    description:
      `The pet id (\`payload${definition.keyPointer.replace(/\//g, '.')}\`, the envelope's \`key\`) in decimal: ` +
      "one pet's events share a partition and stay in order.",
  };
}

function exampleEnvelope(definition: AnyEventDefinition, schemaVersion: number, payload: unknown): EventEnvelope {
  return {
    eventId: '0b6f5c3e-8f0a-4b7e-9a43-2a1d7c9e5b10',
    type: definition.type,
    schemaVersion,
    occurredAt: '2026-11-26T10:15:30.000Z',
    producer: EXAMPLE_PRODUCER[definition.type] ?? 'catalog',
    correlationId: '6a1f0e4c-2d3b-4f5a-8c7d-9e0f1a2b3c4d',
    causationId: null,
    key: definition.key(definition.example),
    payload,
  };
}

const EXAMPLE_PRODUCER: Record<string, string> = Object.fromEntries(
  CONSUMING_SERVICES.flatMap((service) => EVENT_SERVICES[service].publishes.map((definition) => [definition.type, service])),
);

function exampleHeaders(envelope: EventEnvelope): Record<string, string> {
  return {
    [EventHeaders.type.name]: envelope.type,
    [EventHeaders.id.name]: envelope.eventId,
    [EventHeaders.publicationSource.name]: '5d0c3f7e-1b2a-4c6d-8e9f-0a1b2c3d4e5f',
    [EventHeaders.publicationSeq.name]: '1042',
    [EventHeaders.traceparent.name]: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
  };
}
