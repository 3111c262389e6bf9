import type { AnyEventDefinition } from '../events/define-event';
import type { EventService } from '../events/services';
import type { Topic } from '../events/topics';
import { KAFKA_BINDING, channelIdOf, previousMessageId, ref, stringEnum, type AsyncApiOperation } from './asyncapi-model';

/* What each service publishes (through its outbox) and consumes (as its consumer group), per topic. */

export function operationId(service: EventService, action: 'send' | 'receive', topic: Topic): string {
  const channel = channelIdOf(topic);
  return `${service}${action === 'send' ? 'Publishes' : 'Consumes'}${channel[0].toUpperCase()}${channel.slice(1)}`;
}

export function sendOperation(service: EventService, topic: Topic, definitions: readonly AnyEventDefinition[]): AsyncApiOperation {
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

export function receiveOperation(service: EventService, topic: Topic, definitions: readonly AnyEventDefinition[]): AsyncApiOperation {
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
