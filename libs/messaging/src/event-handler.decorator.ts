import type { EntityManager } from '@mikro-orm/postgresql';
import type { AnyEventDefinition, EnvelopeOf } from '@petstore/contracts';

const EVENT_HANDLER = Symbol('EVENT_HANDLER');

/**
 * What a consumer implements for one or more event types. `handleBatch` gets consecutive
 * events of its types from one partition, in order, none of them handled before, and works
 * on them as a set: one statement per kind of change, not one per event. It runs inside one
 * transaction on `em` that also records how far the partition was applied; events it
 * publishes go through the outbox on the same `em`. Throwing rolls everything back; the
 * events are then handled one at a time, retried, and dead-lettered.
 *
 * The transaction is a statement transaction (libs/database): `em` runs statements
 * (executePrepared) and commit hooks, and refuses entity reads and changes.
 */
export interface EventHandlerOf<D extends AnyEventDefinition> {
  handleBatch(events: EnvelopeOf<D>[], em: EntityManager): Promise<void>;
}

/** Marks a provider as the handler of these event types; list the class in MessagingModule.forRoot({ handlers }). */
export function EventHandler(...definitions: AnyEventDefinition[]): ClassDecorator {
  if (definitions.length === 0) throw new Error('@EventHandler needs at least one event definition');
  return (target) => {
    Reflect.defineMetadata(EVENT_HANDLER, definitions, target);
  };
}

export function handledEvents(handler: object): AnyEventDefinition[] | undefined {
  return Reflect.getMetadata(EVENT_HANDLER, handler) as AnyEventDefinition[] | undefined;
}
