import type { EntityManager } from '@mikro-orm/postgresql';
import type { AnyEventDefinition, EnvelopeOf } from '@petstore/contracts';

const EVENT_HANDLER = Symbol('EVENT_HANDLER');

/**
 * What a consumer implements for one event type. `handle` runs inside a transaction on `em`
 * that also records the event as processed; events it publishes go through the outbox on the
 * same `em`. Throwing rolls everything back and the event is retried, then dead-lettered.
 */
export interface EventHandlerOf<D extends AnyEventDefinition> {
  handle(event: EnvelopeOf<D>, em: EntityManager): Promise<void>;
}

/** Marks a provider as the handler of one event type; list the class in MessagingModule.forRoot({ handlers }). */
export function EventHandler(definition: AnyEventDefinition): ClassDecorator {
  return (target) => {
    Reflect.defineMetadata(EVENT_HANDLER, definition, target);
  };
}

export function handledEvent(handler: object): AnyEventDefinition | undefined {
  return Reflect.getMetadata(EVENT_HANDLER, handler) as AnyEventDefinition | undefined;
}
