import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context, type Span } from '@opentelemetry/api';

const rpcTracer = trace.getTracer('@petstore/rpc');

/** The W3C trace context an RPC payload carries (the top-level fields of `RpcRequest`). */
export interface RpcTraceFields {
  traceparent?: string;
  tracestate?: string;
}

/** Who answers a call: the service and the pattern's `cmd`; the address on the calling side. */
export interface RpcCallee {
  service: string;
  method: string;
  host?: string;
  port?: number;
}

/** The payload with the trace context of `ctx` added (unchanged when nothing traces). */
export function withRpcTraceFields<R extends object>(request: R, ctx: Context): R & RpcTraceFields {
  const fields: RpcTraceFields = {};
  propagation.inject(ctx, fields);
  return fields.traceparent ? { ...request, ...fields } : request;
}

/** The caller's context, read from a payload's trace fields (the root context when it has none). */
export function rpcCallerContext(request: unknown): Context {
  if (typeof request !== 'object' || request === null) return ROOT_CONTEXT;
  const { traceparent, tracestate } = request as Record<string, unknown>;
  if (typeof traceparent !== 'string') return ROOT_CONTEXT;
  return propagation.extract(ROOT_CONTEXT, typeof tracestate === 'string' ? { traceparent, tracestate } : { traceparent });
}

/**
 * The calling side: `send` runs in an RPC client span and gets the payload carrying that
 * span's context, so the service's server span, and whatever it writes, joins the caller's trace.
 * Traces start at a request: a call made outside one (the readiness probe's) is not traced.
 */
export function traceRpcCall<R extends object, T>(callee: RpcCallee, request: R, send: (request: R & RpcTraceFields) => Promise<T>): Promise<T> {
  if (!trace.getSpan(context.active())) return send(request);
  const span = rpcTracer.startSpan(`${callee.service}/${callee.method}`, {
    kind: SpanKind.CLIENT,
    attributes: {
      ...rpcAttributes(callee),
      ...(callee.host !== undefined && { 'server.address': callee.host }),
      ...(callee.port !== undefined && { 'server.port': callee.port }),
    },
  });
  const spanContext = trace.setSpan(context.active(), span);
  // A request the sampler dropped still hands on its trace id, marked not sampled: the service
  // then drops its spans too (and logs the same trace id) instead of starting a trace of its own.
  if (!span.isRecording()) return send(withRpcTraceFields(request, spanContext));
  return settle(span, context.with(spanContext, () => send(withRpcTraceFields(request, spanContext))));
}

/** The answering side: `handle` runs in an RPC server span, child of the caller's span from the payload (untraced without one). */
export function traceRpcHandling<T>(callee: RpcCallee, request: unknown, handle: () => T): T {
  const parent = rpcCallerContext(request);
  if (!trace.getSpan(parent)) return handle();
  const span = rpcTracer.startSpan(`${callee.service}/${callee.method}`, { kind: SpanKind.SERVER, attributes: rpcAttributes(callee) }, parent);
  // Not sampled: no span to end, but the handling stays in the caller's trace, so what it writes
  // (an outbox row's traceparent) is not sampled either and its logs carry the trace id.
  if (!span.isRecording()) return context.with(trace.setSpan(parent, span), handle);
  let result: T;
  try {
    result = context.with(trace.setSpan(parent, span), handle);
  } catch (error) {
    fail(span, error);
    span.end();
    throw error;
  }
  if (result instanceof Promise) return settle(span, result) as T;
  span.end();
  return result;
}

function rpcAttributes({ service, method }: RpcCallee): Record<string, string> {
  return { 'rpc.system': 'nestjs_tcp', 'rpc.service': service, 'rpc.method': method };
}

function settle<T>(span: Span, outcome: Promise<T>): Promise<T> {
  return outcome.then(
    (value) => {
      span.end();
      return value;
    },
    (error: unknown) => {
      fail(span, error);
      span.end();
      throw error;
    },
  );
}

/** A refusal with a 4xx status is an answer, not a failure of the call: only the rest marks the span as an error. */
function fail(span: Span, error: unknown): void {
  const status = (error as { status?: unknown } | null)?.status;
  const code = (error as { code?: unknown } | null)?.code;
  span.setAttribute('error.type', typeof code === 'string' ? code : error instanceof Error ? error.name : 'unknown');
  if (typeof status === 'number' && status < 500) return;
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
}
