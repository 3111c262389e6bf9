import { Inject, Injectable, type Type } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { MikroORM, type EntityManager } from '@mikro-orm/postgresql';
import { InvalidEventError, parseEnvelope, type AnyEventDefinition, type EventEnvelope } from '@petstore/contracts';
import { NonRetriableError, type ConsumedMessage } from '@petstore/kafka';
import { handledEvent, type EventHandlerOf } from './event-handler.decorator';
import { MESSAGING_OPTIONS, type MessagingOptions } from './messaging.options';

interface Route {
  definition: AnyEventDefinition;
  handler: EventHandlerOf<AnyEventDefinition>;
}

interface Routed {
  route: Route;
  event: EventEnvelope;
}

/** Turns a Kafka message into at most one handler call, exactly once per event id. */
@Injectable()
export class EventDispatcher {
  private routes = new Map<string, Route>();

  constructor(
    private readonly orm: MikroORM,
    private readonly moduleRef: ModuleRef,
    @Inject(MESSAGING_OPTIONS) private readonly options: MessagingOptions,
  ) {}

  /** Resolves the handler instances; fails start-up on a handler that cannot work. */
  async resolveHandlers(): Promise<void> {
    const routes = new Map<string, Route>();
    for (const type of this.options.handlers ?? []) {
      const definition = handledEvent(type);
      if (!definition) throw new Error(`${type.name} is listed as an event handler but has no @EventHandler(...)`);
      const existing = routes.get(definition.type);
      if (existing) {
        throw new Error(`${definition.type} has two handlers: ${existing.handler.constructor.name} and ${type.name}`);
      }
      routes.set(definition.type, { definition, handler: await this.instanceOf(type) });
    }
    this.routes = routes;
  }

  /** Contract topics the handlers' events travel on (un-namespaced). */
  topics(): string[] {
    return [...new Set([...this.routes.values()].map((route) => route.definition.topic))];
  }

  async dispatch(message: ConsumedMessage): Promise<void> {
    await this.dispatchBatch([message]);
  }

  /**
   * Consecutive messages of one partition in one transaction: one commit (and one wake of the
   * relay) for all of them instead of one each. Each event still gets its processed_event row
   * and its own unit of work; any error rolls all of them back, and the consumer then
   * dispatches them one by one.
   */
  async dispatchBatch(messages: ConsumedMessage[]): Promise<void> {
    const routed: Routed[] = [];
    for (const message of messages) {
      const one = this.route(message);
      if (one) routed.push(one);
    }
    if (routed.length === 0) return;
    await this.orm.em.fork().transactional(async (em) => {
      const recorded = await this.record(
        em,
        routed.map(({ event }) => event.eventId),
      );
      for (const { route, event } of routed) {
        // delete: an event fetched twice in one batch is handled by its first copy only.
        if (!recorded.delete(event.eventId.toLowerCase())) continue;
        await route.handler.handle(event, em);
        await em.flush();
        em.clear();
      }
    });
  }

  /** The handler and the validated event, or nothing for an event type this service does not handle. */
  private route(message: ConsumedMessage): Routed | undefined {
    let envelope: EventEnvelope<string, Record<string, unknown>>;
    try {
      envelope = parseEnvelope(message.value);
    } catch (error) {
      throw invalid(error);
    }
    // Topics carry several event types; the ones this service does not handle are not its business.
    const route = this.routes.get(envelope.type);
    if (!route) return undefined;
    try {
      return { route, event: route.definition.parse(envelope) };
    } catch (error) {
      throw invalid(error);
    }
  }

  /** Records the events as processed; answers the ids that were not recorded before. */
  private async record(em: EntityManager, eventIds: string[]): Promise<Set<string>> {
    const rows = await em.execute<{ event_id: string }[]>(
      `insert into processed_event (consumer, event_id, processed_at)
         values ${eventIds.map(() => '(?, ?, now())').join(', ')}
         on conflict do nothing returning event_id`,
      eventIds.flatMap((eventId) => [this.options.producer, eventId]),
    );
    // PostgreSQL answers uuids in lower case.
    return new Set(rows.map((row) => row.event_id.toLowerCase()));
  }

  /**
   * A handler is normally a provider of its feature module. One that is not is created here,
   * which works when everything it injects is global (EntityManager, OutboxWriter, ...).
   */
  private async instanceOf(type: Type<unknown>): Promise<EventHandlerOf<AnyEventDefinition>> {
    let instance: unknown;
    try {
      instance = this.moduleRef.get(type, { strict: false });
    } catch {
      try {
        instance = await this.moduleRef.create(type);
      } catch (error) {
        throw new Error(
          `${type.name} could not be created (${(error as Error).message}); add it to its feature module's providers`,
        );
      }
    }
    if (typeof (instance as Partial<EventHandlerOf<AnyEventDefinition>>).handle !== 'function') {
      throw new Error(`${type.name} has no handle(event, em) method`);
    }
    return instance as EventHandlerOf<AnyEventDefinition>;
  }
}

function invalid(error: unknown): NonRetriableError {
  const message = error instanceof InvalidEventError || error instanceof Error ? error.message : String(error);
  return new NonRetriableError(message, { cause: error });
}
