import type { AnyEventDefinition } from '../events/define-event';
import { envelopeSchema, serializeEnvelope, type EventEnvelope } from '../events/envelope';
import { DeadLetterHeaders, EventHeaders, ReplayHeaders, type HeaderContract } from '../events/headers';
import { EVENT_DEFINITIONS } from '../events/registry';
import { EVENT_SERVICES, type EventService } from '../events/services';
import { CONSUMING_SERVICES, Topics, deadLetterTopic, type Topic } from '../events/topics';

/*
 * The AsyncAPI 3.0 document of the events, made from the definitions in libs/contracts (never
 * written by hand): a channel per topic, a message per event type (and per previous version
 * still read), an operation per service and topic it publishes to or consumes from, and the
 * dead-letter topics. docs/asyncapi/ holds the whole document; each service serves its part.
 */

export interface AsyncApiOptions {
  /** Partitions of each topic (KAFKA_TOPIC_PARTITIONS). */
  partitions: number;
  /** Only what this service publishes and consumes; the whole document without. */
  service?: EventService;
}

export type AsyncApiDocument = Record<string, unknown> & {
  asyncapi: '3.0.0';
  channels: Record<string, AsyncApiChannel>;
  operations: Record<string, AsyncApiOperation>;
  components: { messages: Record<string, AsyncApiMessage> } & Record<string, unknown>;
};

export interface AsyncApiChannel {
  address: string;
  messages: Record<string, Ref>;
  [field: string]: unknown;
}

export interface AsyncApiOperation {
  action: 'send' | 'receive';
  channel: Ref;
  messages: Ref[];
  [field: string]: unknown;
}

export interface AsyncApiMessage {
  name: string;
  headers: JsonSchema;
  payload: JsonSchema;
  examples: { name: string; summary: string; headers: Record<string, string>; payload: unknown }[];
  bindings: { kafka: { key: JsonSchema; bindingVersion: string } };
  [field: string]: unknown;
}

type JsonSchema = Record<string, unknown>;
interface Ref {
  $ref: string;
}

const KAFKA_BINDING = '0.5.0';
const DEAD_LETTER = 'DeadLetter';

const ORDERING =
  "Every event is keyed by its pet's id, so all events of one pet are on one partition, in the order their " +
  'producer committed them, and a consumer group handles one partition in order: a consumer sees one pet\'s ' +
  'events in the order they happened. Nothing is ordered across pets.';

/** What the channel bindings say about keys and order (extensions of the Kafka binding). */
const KEY = 'the pet id, in decimal';
const ORDER_PROMISE = "one pet's events in the order their producer committed them";

const NAMESPACE =
  'At run time every topic and consumer group name is prefixed with KAFKA_NAMESPACE (empty in production; ' +
  'each test stack sets its own).';

/** The document, or one service's part of it. */
export function asyncApiDocument(options: AsyncApiOptions): AsyncApiDocument {
  const whole = wholeDocument(options.partitions);
  return options.service ? partOf(whole, options.service) : whole;
}

/** The id of an event topic's channel: the key of `Topics` (`catalogPet`). */
export function channelIdOf(topic: Topic): string {
  const entry = Object.entries(Topics).find(([, name]) => name === topic);
  if (!entry) throw new Error(`${topic} is not a topic of the contract`);
  return entry[0];
}

/** The message id of a version `parse` still reads besides the current one. */
export function previousMessageId(definition: AnyEventDefinition): string | undefined {
  return definition.previous ? `${definition.type}V${definition.previous.schemaVersion}` : undefined;
}

function deadLetterChannelId(service: EventService): string {
  return `${service}DeadLetter`;
}

function wholeDocument(partitions: number): AsyncApiDocument {
  const channels: Record<string, AsyncApiChannel> = {};
  const messages: Record<string, AsyncApiMessage> = {};
  for (const topic of Object.values(Topics)) {
    const definitions = EVENT_DEFINITIONS.filter((definition) => definition.topic === topic);
    const channelMessages: Record<string, Ref> = {};
    for (const definition of definitions) {
      messages[definition.type] = eventMessage(definition, 'current');
      channelMessages[definition.type] = ref(`#/components/messages/${definition.type}`);
      const previousId = previousMessageId(definition);
      if (previousId) {
        messages[previousId] = eventMessage(definition, 'previous');
        channelMessages[previousId] = ref(`#/components/messages/${previousId}`);
      }
    }
    channels[channelIdOf(topic)] = {
      address: topic,
      title: topic,
      description: `${definitions.map((definition) => definition.type).join(', ')}. ${ORDERING}`,
      messages: channelMessages,
      bindings: { kafka: { topic, partitions, 'x-key': KEY, 'x-ordering': ORDER_PROMISE, bindingVersion: KAFKA_BINDING } },
    };
  }
  messages[DEAD_LETTER] = deadLetterMessage();
  for (const service of CONSUMING_SERVICES) {
    const topic = deadLetterTopic(service);
    channels[deadLetterChannelId(service)] = {
      address: topic,
      title: topic,
      description:
        `What the consumer group \`${service}\` could not handle: a message no retry can fix (not an event of the ` +
        'contract, a payload its schema rejects) at once, any other after its retries, so that its partition moves ' +
        `on. Listed, replayed and purged with \`node main.js dlt list|show|replay|purge\` in the ${service} ` +
        'container or process (docs/OPERATIONS.md, Dead letters).',
      messages: { [DEAD_LETTER]: ref(`#/components/messages/${DEAD_LETTER}`) },
      bindings: { kafka: { topic, partitions, 'x-key': 'the original message\'s key', bindingVersion: KAFKA_BINDING } },
    };
  }

  const operations: Record<string, AsyncApiOperation> = {};
  for (const service of CONSUMING_SERVICES) {
    const { publishes, consumes } = EVENT_SERVICES[service];
    for (const topic of Object.values(Topics)) {
      const sent = publishes.filter((definition) => definition.topic === topic);
      if (sent.length > 0) operations[operationId(service, 'send', topic)] = sendOperation(service, topic, sent);
      const received = consumes.filter((definition) => definition.topic === topic);
      if (received.length > 0) {
        operations[operationId(service, 'receive', topic)] = receiveOperation(service, topic, received);
      }
    }
    operations[`${service}SendsDeadLetters`] = {
      action: 'send',
      channel: ref(`#/channels/${deadLetterChannelId(service)}`),
      title: `${service} dead-letters what it cannot handle`,
      summary: `The consumer of ${service} copies a message it gave up on, with its key and headers, to ${deadLetterTopic(service)}.`,
      messages: [ref(`#/channels/${deadLetterChannelId(service)}/messages/${DEAD_LETTER}`)],
      tags: [{ name: service }],
      bindings: { kafka: { clientId: stringEnum(service, 'The Kafka client id (namespaced).'), bindingVersion: KAFKA_BINDING } },
    };
  }

  return {
    asyncapi: '3.0.0',
    info: {
      title: 'Pet store events',
      version: '1.0.0',
      description: [
        'The domain events the pet store services exchange over Kafka: state that crosses a service boundary.',
        '',
        'Every event is a JSON envelope (`eventId`, `type`, `schemaVersion`, `occurredAt`, `producer`, ' +
          '`correlationId`, `causationId`, `key`, `payload`) whose `payload` has the schema of its type and ' +
          '`schemaVersion`. It is written to the producer\'s outbox in the transaction of the change it reports ' +
          'and published after the commit, at least once. Consumers handle an event once however often it is ' +
          'delivered (by its publication number or its `eventId`), read tolerantly (unknown fields are ignored), ' +
          'accept the previous schema version of every event they handle, and move what they cannot handle to ' +
          'their dead-letter topic.',
        '',
        ORDERING,
        '',
        NAMESPACE,
        '',
        'Generated from libs/contracts (`npx nx run contracts:asyncapi`). Each service serves its part at ' +
          '`GET /asyncapi.json` on its HTTP port.',
      ].join('\n'),
    },
    defaultContentType: 'application/json',
    servers: {
      kafka: {
        host: '127.0.0.1:9092',
        protocol: 'kafka',
        description: 'The brokers of KAFKA_BROKERS (default `127.0.0.1:9092`). ' + NAMESPACE,
      },
    },
    channels,
    operations,
    components: {
      messages,
      correlationIds: {
        correlationId: {
          description:
            'The request that started the chain (the gateway\'s request id), kept by every event it causes; ' +
            'the first event\'s own id when no request did.',
          location: '$message.payload#/correlationId',
        },
      },
    },
  };
}

function operationId(service: EventService, action: 'send' | 'receive', topic: Topic): string {
  const channel = channelIdOf(topic);
  return `${service}${action === 'send' ? 'Publishes' : 'Consumes'}${channel[0].toUpperCase()}${channel.slice(1)}`;
}

function sendOperation(service: EventService, topic: Topic, definitions: readonly AnyEventDefinition[]): AsyncApiOperation {
  const types = definitions.map((definition) => definition.type).join(', ');
  return {
    action: 'send',
    channel: ref(`#/channels/${channelIdOf(topic)}`),
    title: `${service} publishes ${types}`,
    summary: `${service} writes ${types} to its outbox in the transaction of the change; its relay publishes them to ${topic}.`,
    messages: definitions.map((definition) => ref(`#/channels/${channelIdOf(topic)}/messages/${definition.type}`)),
    tags: [{ name: service }],
    bindings: { kafka: { clientId: stringEnum(service, 'The Kafka client id (namespaced).'), bindingVersion: KAFKA_BINDING } },
  };
}

function receiveOperation(service: EventService, topic: Topic, definitions: readonly AnyEventDefinition[]): AsyncApiOperation {
  const types = definitions.map((definition) => definition.type).join(', ');
  const messageIds = definitions.flatMap((definition) => {
    const previousId = previousMessageId(definition);
    return previousId ? [definition.type, previousId] : [definition.type];
  });
  return {
    action: 'receive',
    channel: ref(`#/channels/${channelIdOf(topic)}`),
    title: `${service} consumes ${types}`,
    summary:
      `The consumer group \`${service}\` handles ${types} from ${topic}` +
      (messageIds.length > definitions.length ? ' (and the previous schema version still read)' : '') +
      ', once each, and skips the other types of the topic by their `event-type` header.',
    messages: messageIds.map((id) => ref(`#/channels/${channelIdOf(topic)}/messages/${id}`)),
    tags: [{ name: service }],
    bindings: {
      kafka: {
        groupId: stringEnum(service, 'The consumer group: one per service, shared by its replicas (namespaced).'),
        clientId: stringEnum(service, 'The Kafka client id (namespaced).'),
        bindingVersion: KAFKA_BINDING,
      },
    },
  };
}

function eventMessage(definition: AnyEventDefinition, version: 'current' | 'previous'): AsyncApiMessage {
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

function deadLetterMessage(): AsyncApiMessage {
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

/** One service's operations, and the channels and messages they use. */
function partOf(whole: AsyncApiDocument, service: EventService): AsyncApiDocument {
  const operations = Object.fromEntries(
    Object.entries(whole.operations).filter(([, operation]) =>
      (operation.tags as { name: string }[]).some((tag) => tag.name === service),
    ),
  );
  const channelIds = new Set(Object.values(operations).map((operation) => lastSegment(operation.channel.$ref)));
  const messageIds = new Set(
    Object.values(operations).flatMap((operation) => operation.messages.map((message) => lastSegment(message.$ref))),
  );
  const channels = Object.fromEntries(
    Object.entries(whole.channels)
      .filter(([id]) => channelIds.has(id))
      .map(([id, channel]) => [
        id,
        { ...channel, messages: Object.fromEntries(Object.entries(channel.messages).filter(([messageId]) => messageIds.has(messageId))) },
      ]),
  );
  const messages = Object.fromEntries(Object.entries(whole.components.messages).filter(([id]) => messageIds.has(id)));
  const info = whole['info'] as { title: string; description: string };
  return {
    ...whole,
    info: {
      ...info,
      title: `${info.title}: ${service}`,
      description: `What ${service} publishes and consumes. The whole document is docs/asyncapi/asyncapi.json.\n\n${info.description}`,
    },
    channels,
    operations,
    components: { ...whole.components, messages },
  };
}

function lastSegment(pointer: string): string {
  return pointer.slice(pointer.lastIndexOf('/') + 1);
}

function ref($ref: string): Ref {
  return { $ref };
}

function stringEnum(value: string, description: string): JsonSchema {
  return { type: 'string', enum: [value], description };
}
