import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import { serializeEnvelope } from '@petstore/contracts';
import { startSpan } from '@petstore/observability';
import {
  EVENT_HEADERS,
  PUBLICATION_NUMBER_HEADERS,
  TRACE_HEADERS,
  createBatchProducer,
  sendAll,
  type TopicMessages,
} from '@petstore/kafka';
import type { IHeaders, Producer } from 'kafkajs';
import type { MessagingKafka } from './messaging-kafka';
import type { ClaimedRow } from './outbox-claims';
import { contextFromCarrier, messagingTracer, traceCarrierOf } from './trace-context';

/** Kafka headers that identify a relayed event for deduplication (see ConsumerPositions); a dead-letter replay drops them. */
export const OUTBOX_HEADERS = PUBLICATION_NUMBER_HEADERS;

/**
 * Sends claimed outbox rows to Kafka in one request acknowledged by all in-sync replicas, each
 * with its publication number in the headers and an OpenTelemetry "send" span. Owns the
 * batch producer: connected on first use, discarded after a failure.
 */
export class OutboxPublisher {
  private producer?: Producer;
  private open = false;

  constructor(private readonly kafka: MessagingKafka) {}

  /** Lets publish() connect a producer. */
  start(): void {
    this.open = true;
  }

  /** Refuses further publishing and disconnects the producer. */
  async stop(): Promise<void> {
    this.open = false;
    await this.discardProducer();
  }

  /** Publishes `rows` as relayed by the outbox `source`; on a failure the producer is discarded and the error thrown. */
  async publish(source: string, rows: ClaimedRow[]): Promise<void> {
    try {
      await this.send(source, rows);
    } catch (error) {
      await this.discardProducer();
      throw error;
    }
  }

  private async send(source: string, rows: ClaimedRow[]): Promise<void> {
    const producer = await this.connectedProducer();
    const byTopic = new Map<string, TopicMessages>();
    const spans: Span[] = [];
    for (const row of rows) {
      const topic = this.kafka.name(row.topic);
      let entry = byTopic.get(topic);
      if (!entry) byTopic.set(topic, (entry = { topic, messages: [] }));
      const span = producerSpan(topic, row);
      spans.push(span);
      const headers: IHeaders = {
        [EVENT_HEADERS.type]: row.type,
        [EVENT_HEADERS.id]: row.event_id,
        [OUTBOX_HEADERS.source]: source,
        [OUTBOX_HEADERS.seq]: row.publish_seq,
      };
      // The consumer's span is the child of this publish; without a tracer the writer's context travels on as it was.
      const carrier = span.isRecording()
        ? traceCarrierOf(trace.setSpan(ROOT_CONTEXT, span))
        : { traceparent: row.traceparent, tracestate: row.tracestate };
      if (carrier.traceparent) headers[TRACE_HEADERS.traceparent] = carrier.traceparent;
      if (carrier.tracestate) headers[TRACE_HEADERS.tracestate] = carrier.tracestate;
      entry.messages.push({ key: row.key, value: serializeEnvelope(row.envelope), headers });
    }
    try {
      await sendAll(producer, [...byTopic.values()]);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      for (const span of spans) span.setStatus({ code: SpanStatusCode.ERROR, message });
      throw error;
    } finally {
      for (const span of spans) span.end();
    }
  }

  private async connectedProducer(): Promise<Producer> {
    if (this.producer) return this.producer;
    if (!this.open) throw new Error('The outbox relay is stopped');
    const producer = createBatchProducer(this.kafka.kafka);
    try {
      await producer.connect();
      if (!this.open) throw new Error('The outbox relay is stopped');
    } catch (error) {
      await producer.disconnect().catch(() => undefined);
      throw error;
    }
    this.producer = producer;
    return producer;
  }

  /** After a failure the producer's connections and metadata are suspect: the next batch starts afresh. */
  private async discardProducer(): Promise<void> {
    const producer = this.producer;
    this.producer = undefined;
    await producer?.disconnect().catch(() => undefined);
  }
}

/** The OpenTelemetry messaging conventions' "send" span, child of the context the row was written in. */
function producerSpan(topic: string, row: ClaimedRow): Span {
  const parent = contextFromCarrier({
    traceparent: row.traceparent ?? undefined,
    tracestate: row.tracestate ?? undefined,
  });
  return startSpan(
    messagingTracer,
    `send ${topic}`,
    {
      kind: SpanKind.PRODUCER,
      attributes: () => ({
        'messaging.system': 'kafka',
        'messaging.operation.type': 'send',
        'messaging.operation.name': 'send',
        'messaging.destination.name': topic,
        'messaging.message.id': row.event_id,
        'messaging.kafka.message.key': row.key,
        'petstore.event.type': row.type,
      }),
    },
    parent,
  );
}
