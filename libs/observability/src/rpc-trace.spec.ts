import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { rpcCallerContext, traceRpcCall, traceRpcHandling, withRpcTraceFields, type RpcTraceFields } from './rpc-trace';

const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

describe('the trace context of an RPC payload', () => {
  const exported = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: exported })] });
  const requestTracer = provider.getTracer('test');

  beforeAll(() => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    trace.setGlobalTracerProvider(provider);
  });
  afterEach(() => exported.reset());
  afterAll(() => provider.shutdown());

  it('goes in as traceparent/tracestate beside the request fields and comes back out', () => {
    const caller = propagation.extract(ROOT_CONTEXT, { traceparent: TRACEPARENT, tracestate: 'vendor=1' });
    const payload = withRpcTraceFields({ requestId: 'r-1', id: '7' }, caller);
    expect(payload).toEqual({ requestId: 'r-1', id: '7', traceparent: TRACEPARENT, tracestate: 'vendor=1' });
    const back = trace.getSpanContext(rpcCallerContext(payload));
    expect(back).toMatchObject({ traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', isRemote: true });
  });

  it('leaves a payload alone when there is no trace, and reads none from one without it', () => {
    expect(withRpcTraceFields({ requestId: 'r-1' }, ROOT_CONTEXT)).toEqual({ requestId: 'r-1' });
    expect(trace.getSpanContext(rpcCallerContext({ requestId: 'r-1' }))).toBeUndefined();
    expect(trace.getSpanContext(rpcCallerContext({ requestId: 'r-1', traceparent: 'not a traceparent' }))).toBeUndefined();
    expect(trace.getSpanContext(rpcCallerContext(null))).toBeUndefined();
  });

  it('joins the caller and the handling in one trace: request → server span, no client span between', async () => {
    const request = requestTracer.startSpan('POST /v1/store/orders');
    const reply = await context.with(trace.setSpan(ROOT_CONTEXT, request), () =>
      traceRpcCall({ service: 'orders', method: 'orders.place' }, { requestId: 'r-1' }, async (payload: { requestId: string } & RpcTraceFields) => {
        await new Promise((resolve) => setTimeout(resolve, 1));
        // What the service does with the payload it received.
        return traceRpcHandling({ service: 'orders', method: 'orders.place' }, JSON.parse(JSON.stringify(payload)), async () => {
          await Promise.resolve();
          return trace.getActiveSpan()?.spanContext().spanId;
        });
      }),
    );
    request.end();
    const spans = exported.getFinishedSpans();
    expect(spans.map((span) => span.kind)).toEqual([SpanKind.SERVER, SpanKind.INTERNAL]);
    const [server] = spans;
    expect(server).toMatchObject({ name: 'orders/orders.place', parentSpanContext: { spanId: request.spanContext().spanId } });
    expect(server.attributes).toEqual({ 'rpc.system': 'nestjs', 'rpc.service': 'orders', 'rpc.method': 'orders.place' });
    expect(server.spanContext().traceId).toBe(request.spanContext().traceId);
    // The handler ran with the server span active: what it writes (the outbox row) carries it.
    expect(reply).toBe(server.spanContext().spanId);
  });

  it('notes a call that failed on the caller, but not a refusal with a 4xx status; the server marks its own failure', async () => {
    const request = requestTracer.startSpan('request');
    await context.with(trace.setSpan(ROOT_CONTEXT, request), async () => {
      await expect(traceRpcCall({ service: 'orders', method: 'orders.get' }, {}, () => Promise.reject(Object.assign(new Error('no such order'), { status: 404, code: 'NOT_FOUND' })))).rejects.toThrow();
      await expect(traceRpcCall({ service: 'orders', method: 'orders.place' }, {}, () => Promise.reject(Object.assign(new Error('The orders service did not answer in time'), { code: 'UPSTREAM_TIMEOUT' })))).rejects.toThrow();
    });
    request.end();
    const [caller] = exported.getFinishedSpans();
    expect(caller.events.map(({ name, attributes }) => ({ name, attributes }))).toEqual([
      {
        name: 'rpc.call.failed',
        attributes: { 'rpc.system': 'nestjs', 'rpc.service': 'orders', 'rpc.method': 'orders.place', 'error.type': 'UPSTREAM_TIMEOUT', 'error.message': 'The orders service did not answer in time' },
      },
    ]);

    const payload = withRpcTraceFields({}, trace.setSpan(ROOT_CONTEXT, request));
    await expect(traceRpcHandling({ service: 'orders', method: 'orders.get' }, payload, () => Promise.reject(Object.assign(new Error('no such order'), { status: 404, code: 'NOT_FOUND' })))).rejects.toThrow();
    await expect(traceRpcHandling({ service: 'orders', method: 'orders.place' }, payload, () => Promise.reject(new Error('Connection terminated')))).rejects.toThrow();
    const [, refused, failed] = exported.getFinishedSpans();
    expect(refused.status.code).toBe(SpanStatusCode.UNSET);
    expect(refused.attributes['error.type']).toBe('NOT_FOUND');
    expect(failed.status).toEqual({ code: SpanStatusCode.ERROR, message: 'Connection terminated' });
  });

  it('hands on a request the sampler dropped as not sampled, so the service records nothing of it either', async () => {
    const notSampled = propagation.extract(ROOT_CONTEXT, { traceparent: TRACEPARENT.replace(/-01$/, '-00') });
    const request = requestTracer.startSpan('POST /v1/store/orders', {}, notSampled);
    expect(request.isRecording()).toBe(false);
    const handled = await context.with(trace.setSpan(notSampled, request), () =>
      traceRpcCall({ service: 'orders', method: 'orders.place' }, { requestId: 'r-1' }, async (payload: { requestId: string } & RpcTraceFields) => {
        expect(payload.traceparent).toMatch(/^00-0af7651916cd43dd8448eb211c80319c-[0-9a-f]{16}-00$/);
        return traceRpcHandling({ service: 'orders', method: 'orders.place' }, payload, () => {
          const active = trace.getActiveSpan();
          return { traceId: active?.spanContext().traceId, recording: active?.isRecording(), carried: withRpcTraceFields({}, context.active()).traceparent };
        });
      }),
    );
    // The handler runs in the caller's trace, not sampled: what it writes carries that on.
    expect(handled).toEqual({ traceId: '0af7651916cd43dd8448eb211c80319c', recording: false, carried: expect.stringMatching(/-00$/) });
    expect(exported.getFinishedSpans()).toEqual([]);
  });

  it('traces nothing outside a request: no client span, no traceparent, no server span', async () => {
    const sent = await traceRpcCall({ service: 'orders', method: 'health.check' }, { requestId: 'r-1' }, async (payload) => payload);
    expect(sent).toEqual({ requestId: 'r-1' });
    expect(traceRpcHandling({ service: 'orders', method: 'health.check' }, sent, () => 'ready')).toBe('ready');
    expect(exported.getFinishedSpans()).toEqual([]);
  });
});
