import { AsyncLocalStorage } from 'node:async_hooks';
import { context, propagation, ROOT_CONTEXT, trace, type Context } from '@opentelemetry/api';

/** The tracer of the outbox relay and the consumer; a no-op until a process registers an SDK. */
export const messagingTracer = trace.getTracer('@petstore/messaging');

export interface TraceCarrier {
  traceparent?: string;
  tracestate?: string;
}

/** The W3C headers of `ctx` (empty when nothing traces). */
export function traceCarrierOf(ctx: Context): TraceCarrier {
  const carrier: TraceCarrier = {};
  propagation.inject(ctx, carrier);
  return carrier;
}

export function contextFromCarrier(carrier: Record<string, string | undefined>): Context {
  return propagation.extract(ROOT_CONTEXT, carrier);
}

/*
 * A consumed batch is handled as a set, so no single event's context is "current" while its
 * handler runs. The consumer registers each event's context here; an event written in reaction
 * to one of them (its causationId) joins that event's trace.
 */
const causeContexts = new AsyncLocalStorage<Map<string, Context>>();

export function withCauseContexts<T>(contexts: Map<string, Context>, work: () => T): T {
  return causeContexts.run(contexts, work);
}

/** The trace an event written now belongs to: its cause's, when a consumer is handling that cause, else the current one. */
export function writeContextFor(causationId: string | null): Context {
  const cause = causationId === null ? undefined : causeContexts.getStore()?.get(causationId);
  return cause ?? context.active();
}

/** The W3C headers of the context a consumed event is handled in (to keep with work deferred beyond the batch). */
export function eventTraceCarrier(eventId: string): TraceCarrier {
  return traceCarrierOf(writeContextFor(eventId));
}
