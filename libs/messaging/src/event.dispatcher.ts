import { Inject, Injectable, Logger, type Type } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { MikroORM } from '@mikro-orm/postgresql';
import { context, SpanKind, SpanStatusCode, trace, type Context, type Span } from '@opentelemetry/api';
import {
  EventHeaders,
  InvalidEventError,
  TOPIC_OWNERS,
  parseEnvelope,
  type AnyEventDefinition,
  type EventEnvelope,
} from '@petstore/contracts';
import { inStatementTransaction } from '@petstore/database';
import {
  EVENT_HEADERS,
  NonRetriableError,
  PUBLICATION_NUMBER_HEADERS,
  TRACE_HEADERS,
  type ConsumedMessage,
  type RefusedMessage,
} from '@petstore/kafka';
import { startSpan, withLogContext } from '@petstore/observability';
import { admit, type Admissible, type Admission } from './consumer-positions';
import { handledEvents, type EventHandlerOf } from './event-handler.decorator';
import { MessagingKafka } from './messaging-kafka';
import { consumerBatchSeconds, consumerEvents, consumerRefused } from './messaging.metrics';
import { MESSAGING_OPTIONS, defaultConsumerSettings, type MessagingOptions } from './messaging.options';
import { contextFromCarrier, messagingTracer, withCauseContexts } from './trace-context';

/** A publication number as the contract writes it; one that is not is treated as absent. */
const PUBLICATION_SEQ = new RegExp(EventHeaders.publicationSeq.pattern);
/** Its source likewise: one that is no UUID would fail the position query of its whole batch. */
const PUBLICATION_SOURCE = new RegExp(EventHeaders.publicationSource.pattern);

type AnyHandler = EventHandlerOf<AnyEventDefinition>;

interface Route {
  definition: AnyEventDefinition;
  handler: AnyHandler;
}

/** Why a message was refused: the metric's `reason` label, and the start of the dead letter's error. */
type RefusalReason = 'foreign-producer' | 'implausible-publication-number';

/** A message read and checked: its type, and its envelope and handler when this service handles the type. */
interface Parsed {
  message: ConsumedMessage;
  type: string;
  envelope?: EventEnvelope;
  route?: Route;
  source?: string;
  seq?: number;
  /** Set when the envelope says it comes from a service that does not publish on its topic. */
  refusal?: { reason: RefusalReason; detail: string };
}

interface Accepted extends Parsed {
  envelope: EventEnvelope;
  route: Route;
  span: Span;
  context: Context;
}

/**
 * Turns fetched messages into handler calls, exactly once per event: the batch's copies are
 * dropped (see `admit`), consecutive events of one handler go to it as one set, and
 * everything, with each partition's new position, commits in one transaction.
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

  /** Handles one message on its own; a refused one throws its reason (and goes to the dead-letter topic). */
  async dispatchOne(message: ConsumedMessage): Promise<void> {
    const [refused] = await this.dispatchBatch([message]);
    if (refused) throw refused.reason;
  }

  /**
   * Applies a batch, which may span partitions (each in order), in one transaction; answers the
   * messages refused, which the runner dead-letters.
   */
  async dispatchBatch(messages: ConsumedMessage[]): Promise<RefusedMessage[]> {
    const startedAt = performance.now();
    const parsed = messages.map((message) => this.parse(message));
    if (!parsed.some((one) => one.route)) {
      // Nothing here for this service: no transaction at all.
      for (const one of parsed) consumerEvents.inc({ topic: one.message.topic, type: one.type, outcome: 'skipped' });
      return [];
    }
    let accepted: Accepted[] = [];
    let outcomes: string[] = [];
    try {
      // Handlers write with statements only (see EventHandlerOf), so their transaction needs
      // none of MikroORM's and knex's transaction machinery.
      await inStatementTransaction(this.orm, async (em) => {
        // Only what this service handles needs deduplicating: a skipped message has no effect to
        // repeat, and a refused one must not move the position.
        const counted = parsed.filter((one) => one.route !== undefined && !one.refusal);
        const verdicts = await admit(
          em,
          { consumer: this.options.producer, maxLead: this.maxPublicationLead },
          counted.map(toAdmissible),
        );
        const admissionOf = new Map<Parsed, Admission>(counted.map((one, index) => [one, verdicts[index]]));
        accepted = [];
        outcomes = parsed.map((one) => {
          const admission = admissionOf.get(one);
          if (admission === 'implausible') {
            one.refusal = {
              reason: 'implausible-publication-number',
              detail: `publication number ${one.seq} of outbox ${one.source} is more than ${this.maxPublicationLead} beyond the highest this consumer applied from it`,
            };
          }
          if (one.refusal) return 'refused';
          if (admission === 'copy') return 'duplicate';
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
    return parsed.filter((one) => one.refusal).map((one) => this.refuse(one));
  }

  private get maxPublicationLead(): number {
    return this.options.consumer?.maxPublicationLead ?? defaultConsumerSettings.maxPublicationLead;
  }

  /** Counts and logs a refused message (its ids, never its payload), for the runner to dead-letter. */
  private refuse({ message, envelope, refusal }: Parsed): RefusedMessage {
    const { reason, detail } = refusal as NonNullable<Parsed['refusal']>;
    consumerRefused.inc({ topic: message.topic, reason });
    const error = `${reason}: ${detail}`;
    const fields = {
      correlationId: envelope?.correlationId,
      eventId: envelope?.eventId,
      eventType: envelope?.type,
      refusal: reason,
    };
    withLogContext(fields, () =>
      this.logger.error(`refused ${message.topic}[${message.partition}]@${message.offset} (${error}); it goes to the dead-letter topic`),
    );
    return {
      topic: message.topic,
      partition: message.partition,
      offset: message.offset,
      reason: new NonRetriableError(error, { reported: true }),
    };
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
    const numbered = source !== undefined && PUBLICATION_SOURCE.test(source) && seq !== undefined ? { source, seq } : {};
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
    let parsed: EventEnvelope;
    try {
      parsed = route.definition.read(envelope);
    } catch (error) {
      throw invalid(error);
    }
    return { message, type: envelope.type, envelope: parsed, route, ...numbered, refusal: this.foreign(message, route, parsed) };
  }

  /**
   * Only the service that owns a topic publishes on it (Kafka's ACLs say so first). An event
   * that says it comes from another, or that travels on a topic its type does not belong to,
   * was written by someone else with a credential that could write there: it is not applied.
   */
  private foreign(message: ConsumedMessage, route: Route, envelope: EventEnvelope): Parsed['refusal'] {
    const { topic } = route.definition;
    const owner = TOPIC_OWNERS.get(topic);
    if (message.topic !== this.kafka.name(topic)) {
      return { reason: 'foreign-producer', detail: `${envelope.type} belongs on ${topic}, not on ${message.topic}` };
    }
    if (envelope.producer !== owner) {
      return { reason: 'foreign-producer', detail: `producer '${envelope.producer}' does not own ${topic} (its owner is ${owner})` };
    }
    return undefined;
  }

  /** The OpenTelemetry messaging conventions' "process" span, child of the publish that sent the message. */
  private startSpan(one: Parsed & { route: Route; envelope: EventEnvelope }): Accepted {
    const { message, envelope } = one;
    const parent = contextFromCarrier({
      traceparent: message.headers[TRACE_HEADERS.traceparent],
      tracestate: message.headers[TRACE_HEADERS.tracestate],
    });
    const span = startSpan(
      messagingTracer,
      `process ${message.topic}`,
      {
        kind: SpanKind.CONSUMER,
        attributes: () => ({
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
        }),
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
function toAdmissible({ message, envelope, source, seq }: Parsed): Admissible {
  return { topic: message.topic, partition: message.partition, eventId: (envelope as EventEnvelope).eventId, source, seq };
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
