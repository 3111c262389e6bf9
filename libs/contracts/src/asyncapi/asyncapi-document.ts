import { EVENT_DEFINITIONS } from '../events/registry';
import { EVENT_SERVICES, type EventService } from '../events/services';
import { CONSUMING_SERVICES, Topics, deadLetterTopic } from '../events/topics';
import { deadLetterMessage, eventMessage } from './asyncapi-messages';
import {
  DEAD_LETTER,
  KAFKA_BINDING,
  channelIdOf,
  deadLetterChannelId,
  previousMessageId,
  ref,
  stringEnum,
  type AsyncApiChannel,
  type AsyncApiDocument,
  type AsyncApiMessage,
  type AsyncApiOperation,
  type Ref,
} from './asyncapi-model';
import { operationId, receiveOperation, sendOperation } from './asyncapi-operations';
import { partOf } from './asyncapi-service-part';

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

export type { AsyncApiChannel, AsyncApiDocument, AsyncApiMessage, AsyncApiOperation } from './asyncapi-model';
export { channelIdOf, previousMessageId } from './asyncapi-model';

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
