import type { EventService } from '../events/services';
import type { AsyncApiDocument } from './asyncapi-model';

/** One service's operations, and the channels and messages they use. */
export function partOf(whole: AsyncApiDocument, service: EventService): AsyncApiDocument {
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
