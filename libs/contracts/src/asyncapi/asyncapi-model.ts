import type { AnyEventDefinition } from '../events/define-event';
import type { EventService } from '../events/services';
import { Topics, type Topic } from '../events/topics';

/*
 * The shapes of the AsyncAPI 3.0 document and the ids and references its parts share: the
 * document (asyncapi-document.ts), its messages (asyncapi-messages.ts), its operations
 * (asyncapi-operations.ts) and one service's part (asyncapi-service-part.ts).
 */

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

export type JsonSchema = Record<string, unknown>;
export interface Ref {
  $ref: string;
}

export const KAFKA_BINDING = '0.5.0';
export const DEAD_LETTER = 'DeadLetter';

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

export function deadLetterChannelId(service: EventService): string {
  return `${service}DeadLetter`;
}

export function ref($ref: string): Ref {
  return { $ref };
}

export function stringEnum(value: string, description: string): JsonSchema {
  return { type: 'string', enum: [value], description };
}

