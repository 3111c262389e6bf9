import type { Attributes, Context, Span, SpanKind, Tracer } from '@opentelemetry/api';

export interface SpanStart {
  kind: SpanKind;
  /** Built only for a span that records. */
  attributes: () => Attributes;
}

/**
 * A span whose attributes are built and set only when it records. The SDK checks the attributes
 * handed to `startSpan` before it asks the sampler, and again for a span it keeps; no sampler of
 * this store reads them (trace-sampler.ts), so a span the sampler drops costs no attribute work
 * and a kept one has its attributes checked once.
 */
export function startSpan(tracer: Tracer, name: string, { kind, attributes }: SpanStart, parent: Context): Span {
  const span = tracer.startSpan(name, { kind }, parent);
  if (span.isRecording()) span.setAttributes(attributes());
  return span;
}
