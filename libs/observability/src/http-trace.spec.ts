import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import Fastify, { type FastifyInstance } from 'fastify';
import { connect } from 'node:net';
import { traceHttpRequests } from './http-trace';

const CLIENT_TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const CLIENT_SPAN_ID = 'b7ad6b7169203331';

describe('traceHttpRequests', () => {
  const exported = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: exported })] });
  let app: FastifyInstance;
  /** The trace and span ids the handler saw as current, after the body was read. */
  let seenByHandler: { traceId: string; spanId: string } | undefined;

  beforeAll(async () => {
    process.env['OTEL_EXPORTER_OTLP_ENDPOINT'] = 'http://127.0.0.1:4318';
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    trace.setGlobalTracerProvider(provider);
    app = Fastify();
    traceHttpRequests(app);
    app.post('/v1/items/:id', async (_request, reply) => {
      await new Promise((resolve) => setImmediate(resolve));
      seenByHandler = trace.getActiveSpan()?.spanContext();
      return reply.code(201).send({ ok: true });
    });
    app.get('/v1/broken', async () => {
      throw new Error('no database');
    });
    app.get('/metrics', async () => 'up 1');
    app.get('/health/ready', async () => ({ status: 'ok' }));
    await app.ready();
  });
  afterAll(async () => {
    delete process.env['OTEL_EXPORTER_OTLP_ENDPOINT'];
    await app.close();
    await provider.shutdown();
    trace.disable();
    propagation.disable();
    context.disable();
  });
  beforeEach(() => {
    exported.reset();
    seenByHandler = undefined;
  });

  it("makes one server span per request, named after the route, child of the client's traceparent and current in the handler", async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/v1/items/7?verbose=1',
      headers: { traceparent: `00-${CLIENT_TRACE_ID}-${CLIENT_SPAN_ID}-01`, 'user-agent': 'shop-client/2' },
      payload: { name: 'leash' },
    });
    expect(response.statusCode).toBe(201);
    const [span] = exported.getFinishedSpans();
    expect(exported.getFinishedSpans()).toHaveLength(1);
    expect(span.name).toBe('POST /v1/items/:id');
    expect(span.kind).toBe(SpanKind.SERVER);
    expect(span.spanContext().traceId).toBe(CLIENT_TRACE_ID);
    expect(span.parentSpanContext?.spanId).toBe(CLIENT_SPAN_ID);
    expect(span.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.route': '/v1/items/:id',
      'url.path': '/v1/items/7',
      'url.scheme': 'http',
      'http.response.status_code': 201,
      'user_agent.original': 'shop-client/2',
    });
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
    expect(seenByHandler).toMatchObject({ traceId: CLIENT_TRACE_ID, spanId: span.spanContext().spanId });
  });

  it('starts a trace of its own without a traceparent, and names a request no route serves by its method', async () => {
    expect((await app.inject({ method: 'GET', url: '/v1/nothing-here' })).statusCode).toBe(404);
    const [span] = exported.getFinishedSpans();
    expect(span.name).toBe('GET');
    expect(span.parentSpanContext).toBeUndefined();
    expect(span.attributes['http.route']).toBeUndefined();
    expect(span.attributes['http.response.status_code']).toBe(404);
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
  });

  it("marks a 5xx as the server's failure", async () => {
    expect((await app.inject({ method: 'GET', url: '/v1/broken' })).statusCode).toBe(500);
    const [span] = exported.getFinishedSpans();
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    expect(span.attributes).toMatchObject({ 'http.response.status_code': 500, 'error.type': '500' });
  });

  it('ends the span of a request whose client went away before the answer', async () => {
    const address = await app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = new URL(address);
    // Headers promising a body that never comes, then the connection closed.
    const socket = connect(Number(port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write('POST /v1/items/7 HTTP/1.1\r\nHost: shop\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"na');
    await new Promise((resolve) => setTimeout(resolve, 50));
    socket.destroy();
    // The server learns of the close on its own schedule (libs/testing's `eventually` would make observability depend on itself).
    for (const deadline = Date.now() + 5_000; exported.getFinishedSpans().length === 0 && Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const [span] = exported.getFinishedSpans();
    expect(span.name).toBe('POST /v1/items/:id');
    expect(span.attributes['error.type']).toBe('aborted');
    expect(span.attributes['http.response.status_code']).toBeUndefined();
  });

  it('adds no hook when tracing is off', async () => {
    delete process.env['OTEL_EXPORTER_OTLP_ENDPOINT'];
    const untraced = Fastify();
    traceHttpRequests(untraced);
    // Read once, when the hooks would be added: a hook added now would make a span with the provider above.
    process.env['OTEL_EXPORTER_OTLP_ENDPOINT'] = 'http://127.0.0.1:4318';
    untraced.get('/v1/pets', async () => []);
    expect((await untraced.inject({ method: 'GET', url: '/v1/pets' })).statusCode).toBe(200);
    await untraced.close();
    expect(exported.getFinishedSpans()).toHaveLength(0);
  });

  it('traces neither scrapes nor probes', async () => {
    expect((await app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/health/ready' })).statusCode).toBe(200);
    expect(exported.getFinishedSpans()).toHaveLength(0);
  });
});
