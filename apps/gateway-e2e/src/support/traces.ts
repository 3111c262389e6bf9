import { randomBytes } from 'node:crypto';
import { eventually, stackState } from './stack';

/** A span as the stack's OTLP receiver keeps it (`ReceivedSpan` of @petstore/stack), as its GET /spans answers it. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: 'internal' | 'server' | 'client' | 'producer' | 'consumer';
  service: string;
  attributes: Record<string, string | number | boolean | undefined>;
}

/** A `traceparent` of a new trace, as a client that traces would send it: its trace id and the parent span id it names. */
export function newTraceparent(): { traceparent: string; traceId: string; parentSpanId: string } {
  const traceId = randomBytes(16).toString('hex');
  const parentSpanId = randomBytes(8).toString('hex');
  return { traceparent: `00-${traceId}-${parentSpanId}-01`, traceId, parentSpanId };
}

/** The spans of one trace the stack has exported so far. */
export async function traceSpans(traceId: string): Promise<ReceivedSpan[]> {
  const receiver = stackState().extraEnv['OTEL_EXPORTER_OTLP_ENDPOINT'];
  const response = await fetch(`${receiver}/spans?traceId=${traceId}`);
  return (await response.json()) as ReceivedSpan[];
}

/** Waits until the trace holds a span `accept` picks (the processes export in batches, a moment after the work). */
export async function traceWith(
  traceId: string,
  accept: (span: ReceivedSpan, all: ReceivedSpan[]) => boolean,
  timeoutMs = 15_000,
): Promise<ReceivedSpan[]> {
  return eventually(() => traceSpans(traceId), (spans) => spans.some((span) => accept(span, spans)), timeoutMs);
}
