import { ROOT_CONTEXT, SpanKind } from '@opentelemetry/api';
import { AlwaysOffSampler, AlwaysOnSampler, InMemorySpanExporter, SimpleSpanProcessor, TracerProvider, type Sampler } from '@opentelemetry/sdk-trace';
import { startSpan } from './span';

describe('a span whose attributes are built only when it records', () => {
  const exported = new InMemorySpanExporter();
  const tracerSampling = (sampler: Sampler) =>
    new TracerProvider({ sampler, spanProcessors: [new SimpleSpanProcessor({ exporter: exported })] }).getTracer('test');
  afterEach(() => exported.reset());

  it('carries its attributes and kind when the sampler keeps it', () => {
    startSpan(tracerSampling(new AlwaysOnSampler()), 'send orders.order.v1', {
      kind: SpanKind.PRODUCER,
      attributes: () => ({ 'messaging.system': 'kafka', 'messaging.kafka.offset': 42, 'petstore.event.type': 'OrderPlaced' }),
    }, ROOT_CONTEXT).end();

    const [span] = exported.getFinishedSpans();
    expect(span).toMatchObject({ name: 'send orders.order.v1', kind: SpanKind.PRODUCER });
    expect(span.attributes).toEqual({ 'messaging.system': 'kafka', 'messaging.kafka.offset': 42, 'petstore.event.type': 'OrderPlaced' });
  });

  it('builds no attributes and exports nothing when the sampler drops it, yet carries the trace on', () => {
    let built = 0;
    const span = startSpan(tracerSampling(new AlwaysOffSampler()), 'process orders.order.v1', {
      kind: SpanKind.CONSUMER,
      attributes: () => {
        built++;
        return { 'messaging.system': 'kafka' };
      },
    }, ROOT_CONTEXT);
    span.end();

    expect(built).toBe(0);
    expect(span.isRecording()).toBe(false);
    expect(span.spanContext().traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(exported.getFinishedSpans()).toEqual([]);
  });
});
