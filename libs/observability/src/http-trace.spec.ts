import { context, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { nameHttpServerSpan } from './http-trace';

describe('nameHttpServerSpan', () => {
  const exported = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: exported })] });

  beforeAll(() => context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable()));
  afterAll(() => provider.shutdown());

  it('names the request span after the matched route, and leaves it alone for an unmatched one', () => {
    const matched = provider.getTracer('test').startSpan('POST');
    context.with(trace.setSpan(ROOT_CONTEXT, matched), () => nameHttpServerSpan('POST', '/v1/store/orders/:orderId/cancel'));
    matched.end();
    const unmatched = provider.getTracer('test').startSpan('GET');
    context.with(trace.setSpan(ROOT_CONTEXT, unmatched), () => nameHttpServerSpan('GET', undefined));
    unmatched.end();
    const [first, second] = exported.getFinishedSpans();
    expect(first.name).toBe('POST /v1/store/orders/:orderId/cancel');
    expect(first.attributes['http.route']).toBe('/v1/store/orders/:orderId/cancel');
    expect(second.name).toBe('GET');
  });

  it('does nothing outside a span', () => {
    expect(() => nameHttpServerSpan('GET', '/v1/pets')).not.toThrow();
  });
});
