import { Inject, Injectable, Logger, type Type } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { MikroORM } from '@mikro-orm/postgresql';
import { context, SpanKind, SpanStatusCode, trace, type Context, type Span } from '@opentelemetry/api';
import {
  EventHeaders,
  InvalidEventError,
  parseEnvelope,
  type AnyEventDefinition,
  type EventEnvelope,
} from '@petstore/contracts';
import {
  EVENT_HEADERS,
  NonRetriableError,
  PUBLICATION_NUMBER_HEADERS,
  TRACE_HEADERS,
  type ConsumedMessage,
} from '@petstore/kafka';
import { withLogContext } from '@petstore/observability';
import { admit } from './consumer-positions';
import { handledEvents, type EventHandlerOf } from './event-handler.decorator';
import { MessagingKafka } from './messaging-kafka';
import { consumerBatchSeconds, consumerEvents } from './messaging.metrics';
import { MESSAGING_OPTIONS, type MessagingOptions } from './messaging.options';
import { contextFromCarrier, messagingTracer, withCauseContexts } from './trace-context';

/** A publication number as the contract writes it; one that is not is treated as absent. */
const PUBLICATION_SEQ = new RegExp(EventHeaders.publicationSeq.pattern);

type AnyHandler = EventHandlerOf<AnyEventDefinition>;

interface Route {
  definition: AnyEventDefinition;
  handler: AnyHandler;
}

/** A message read and checked: its type, and its envelope and handler when this service handles the type. */
interface Parsed {
  message: ConsumedMessage;
  type: string;
  envelope?: EventEnvelope;
  route?: Route;
  source?: string;
  seq?: number;
}

interface Accepted extends Parsed {
  envelope: EventEnvelope;
  route: Route;
  span: Span;
  context: Context;
}

/**
 * Turns the messages of one partition into handler calls, exactly once per event: the batch's
 * copies are dropped (see `admit`), consecutive events of one handler go to it as one set,
 * and everything, with the partition's new position, commits in one transaction.
 */
@Injectable()
export class EventDispatcher {
  private readonly logger = new Logger('EventConsumer');
  private routes = new Map<string, Route>();

  constructor(
    private readonly orm: MikroORM,
    private readonly moduleRef: ModuleRef,
    private readonly kafka: MessagingKafka,
    @Inject(MESSAGING_OPTIONS) private readonly options: MessagingOptions,
  ) {}

  /** Resolves the handler instances; fails start-up on a handler that cannot work. */
  async resolveHandlers(): Promise<void> {
    const routes = new Map<string, Route>();
    for (const type of this.options.handlers ?? []) {
      const definitions = handledEvents(type);
      if (!definitions) throw new Error(`${type.name} is listed as an event handler but has no @EventHandler(...)`);
      const handler = await this.instanceOf(type);
      for (const definition of definitions) {
        const existing = routes.get(definition.type);
        if (existing) {
          throw new Error(`${definition.type} has two handlers: ${existing.handler.constructor.name} and ${type.name}`);
        }
        routes.set(definition.type, { definition, handler });
      }
    }
    this.routes = routes;
  }

  /** Contract topics the handlers' events travel on (un-namespaced). */
  topics(): string[] {
    return [...new Set([...this.routes.values()].map((route) => route.definition.topic))];
  }

  async dispatchBatch(messages: ConsumedMessage[]): Promise<void> {
    const startedAt = performance.now();
    const parsed = messages.map((message) => this.parse(message));
    const { topic, partition } = messages[0];
    if (!parsed.some((one) => one.route)) {
      // Nothing here for this service: no transaction at all.
      for (const one of parsed) consumerEvents.inc({ topic: one.message.topic, type: one.type, outcome: 'skipped' });
      return;
    }
    let accepted: Accepted[] = [];
    let outcomes: string[] = [];
    try {
      await this.orm.em.fork().transactional(async (em) => {
        // Only what this service handles needs deduplicating: a skipped message has no effect to repeat.
        const counted = parsed.filter((one) => one.route !== undefined);
        const verdicts = await admit(
          em,
          { consumer: this.options.producer, topic, partition },
          counted.map(toAdmissible),
        );
        const admittedOf = new Map(counted.map((one, index) => [one, verdicts[index]]));
        const admitted = parsed.map((one) => admittedOf.get(one) ?? true);
        accepted = [];
        outcomes = parsed.map((one, index) => {
          if (!admitted[index]) return 'duplicate';
          if (!one.route || !one.envelope) return 'skipped';
          accepted.push(this.startSpan(one as Parsed & { route: Route; envelope: EventEnvelope }));
          return 'handled';
        });
        const contexts = new Map(accepted.map((one) => [one.envelope.eventId, one.context]));
        await withCauseContexts(contexts, async () => {
          for (const run of runsByHandler(accepted)) {
            await run.handler.handleBatch(
              run.events.map((one) => one.envelope),
              em,
            );
            await em.flush();
            em.clear();
          }
        });
      });
    } catch (error) {
      for (const one of accepted) {
        one.span.setStatus({
          code: SpanStatusCode.ERROR,
          message: error instanceof Error ? error.message : String(error),
        });
        one.span.end();
      }
      throw error;
    }
    parsed.forEach((one, index) =>
      consumerEvents.inc({ topic: one.message.topic, type: one.type, outcome: outcomes[index] }),
    );
    for (const one of accepted) {
      one.span.end();
      this.logHandled(one);
    }
    consumerBatchSeconds.observe((performance.now() - startedAt) / 1000);
  }

  /**
   * The envelope, checked against its event's schema when this service handles it; a message
   * whose `event-type` header names a type this service does not handle is not even read.
   * Throws NonRetriableError.
   */
  private parse(message: ConsumedMessage): Parsed {
    const source = message.headers[PUBLICATION_NUMBER_HEADERS.source];
    const seqHeader = message.headers[PUBLICATION_NUMBER_HEADERS.seq];
    const seq = seqHeader !== undefined && PUBLICATION_SEQ.test(seqHeader) ? Number(seqHeader) : undefined;
    const numbered = source !== undefined && seq !== undefined ? { source, seq } : {};
    const typeHeader = message.headers[EVENT_HEADERS.type];
    // Topics carry several event types; the ones this service does not handle are not its business.
    if (typeHeader !== undefined && !this.routes.has(typeHeader)) {
      return { message, type: typeHeader, ...numbered };
    }
    let envelope: EventEnvelope<string, Record<string, unknown>>;
    try {
      envelope = parseEnvelope(message.value);
    } catch (error) {
      throw invalid(error);
    }
    const route = this.routes.get(envelope.type);
    if (!route) return { message, type: envelope.type, envelope, ...numbered };
    try {
      return { message, type: envelope.type, envelope: route.definition.parse(envelope), route, ...numbered };
    } catch (error) {
      throw invalid(error);
    }
  }

  /** The OpenTelemetry messaging conventions' "process" span, child of the publish that sent the message. */
  private startSpan(one: Parsed & { route: Route; envelope: EventEnvelope }): Accepted {
    const { message, envelope } = one;
    const parent = contextFromCarrier({
      traceparent: message.headers[TRACE_HEADERS.traceparent],
      tracestate: message.headers[TRACE_HEADERS.tracestate],
    });
    const span = messagingTracer.startSpan(
      `process ${message.topic}`,
      {
        kind: SpanKind.CONSUMER,
        attributes: {
          'messaging.system': 'kafka',
          'messaging.operation.type': 'process',
          'messaging.operation.name': 'process',
          'messaging.destination.name': message.topic,
          'messaging.destination.partition.id': String(message.partition),
          // The group as Kafka knows it (namespaced), like the destination name.
          'messaging.consumer.group.name': this.kafka.name(this.options.producer),
          'messaging.kafka.offset': Number(message.offset),
          'messaging.message.id': envelope.eventId,
          'messaging.kafka.message.key': message.key ?? '',
          'petstore.event.type': envelope.type,
          'petstore.correlation_id': envelope.correlationId,
        },
      },
      parent,
    );
    return { ...one, span, context: trace.setSpan(parent, span) };
  }

  /** One line per handled event (info, like one per answered request), in the event's trace and log context. */
  private logHandled({ envelope, context: eventContext }: Accepted): void {
    if (!Logger.isLevelEnabled('log')) return;
    const fields = {
      requestId: envelope.correlationId,
      correlationId: envelope.correlationId,
      eventId: envelope.eventId,
      eventType: envelope.type,
    };
    context.with(eventContext, () =>
      withLogContext(fields, () =>
        this.logger.log(`${envelope.type} ${envelope.eventId} handled (key ${envelope.key})`),
      ),
    );
  }

  /**
   * A handler is normally a provider of its feature module. One that is not is created here,
   * which works when everything it injects is global (EntityManager, OutboxWriter, ...).
   */
  private async instanceOf(type: Type<unknown>): Promise<AnyHandler> {
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
    if (typeof (instance as Partial<AnyHandler>).handleBatch !== 'function') {
      throw new Error(`${type.name} has no handleBatch(events, em) method`);
    }
    return instance as AnyHandler;
  }
}

/** A message this service handles: read, so its id is known. */
function toAdmissible({ envelope, source, seq }: Parsed): { eventId: string; source?: string; seq?: number } {
  return { eventId: (envelope as EventEnvelope).eventId, source, seq };
}

/** Consecutive events of one handler, in order: each run is one call. */
function runsByHandler(accepted: Accepted[]): { handler: AnyHandler; events: Accepted[] }[] {
  const runs: { handler: AnyHandler; events: Accepted[] }[] = [];
  for (const one of accepted) {
    const last = runs[runs.length - 1];
    if (last?.handler === one.route.handler) last.events.push(one);
    else runs.push({ handler: one.route.handler, events: [one] });
  }
  return runs;
}

function invalid(error: unknown): NonRetriableError {
  const message = error instanceof InvalidEventError || error instanceof Error ? error.message : String(error);
  return new NonRetriableError(message, { cause: error });
}
