import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context, type Span } from '@opentelemetry/api';
import { startSpan } from './span';

const rpcTracer = trace.getTracer('@petstore/rpc');

/** The W3C trace context an RPC payload carries (the top-level fields of `RpcRequest`). */
export interface RpcTraceFields {
  traceparent?: string;
  tracestate?: string;
}

/** Who answers a call: the service and the pattern's `cmd`. */
export interface RpcCallee {
  service: string;
  method: string;
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
 * The calling side: the payload carries the caller's trace context, so the service's server
 * span, and whatever it writes, joins the caller's trace. Traces start at a request: a call made
 * outside one (the readiness probe's) is not traced. A request the sampler dropped hands on its
 * trace marked not sampled: the service then records nothing of it either (and logs the same
 * trace id) instead of starting a trace of its own.
 *
 * No client span: the caller is the gateway's HTTP request span, whose work is the call, so a
 * client span lasted as long, said what the server span says (`rpc.*`), and was half the
 * spans the gateway exported. What only the caller sees, a call that failed without an answer
 * (timeout, no connection), is an `rpc.call.failed` event on the caller's span.
 */
export function traceRpcCall<R extends object, T>(callee: RpcCallee, request: R, send: (request: R & RpcTraceFields) => Promise<T>): Promise<T> {
  const caller = context.active();
  const span = trace.getSpan(caller);
  if (!span) return send(request);
  const outcome = send(withRpcTraceFields(request, caller));
  if (!span.isRecording()) return outcome;
  return outcome.catch((error: unknown) => {
    if (!isRefusal(error)) span.addEvent('rpc.call.failed', { ...rpcAttributes(callee), 'error.type': errorType(error), 'error.message': errorMessage(error) });
    throw error;
  });
}

/** The answering side: `handle` runs in an RPC server span, child of the caller's span from the payload (untraced without one). */
export function traceRpcHandling<T>(callee: RpcCallee, request: unknown, handle: () => T): T {
  const parent = rpcCallerContext(request);
  if (!trace.getSpan(parent)) return handle();
  const span = startSpan(rpcTracer, `${callee.service}/${callee.method}`, { kind: SpanKind.SERVER, attributes: () => rpcAttributes(callee) }, parent);
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

/** `rpc.system` names the framework, not the transport: the same handlers answer over NATS or TCP (RPC_TRANSPORT). */
function rpcAttributes({ service, method }: RpcCallee): Record<string, string> {
  return { 'rpc.system': 'nestjs', 'rpc.service': service, 'rpc.method': method };
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

/** A refusal with a 4xx status is an answer, not a failure of the call. */
function isRefusal(error: unknown): boolean {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === 'number' && status < 500;
}

function errorType(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : error instanceof Error ? error.name : 'unknown';
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Only what is not a refusal marks the span as an error. */
function fail(span: Span, error: unknown): void {
  span.setAttribute('error.type', errorType(error));
  if (isRefusal(error)) return;
  span.setStatus({ code: SpanStatusCode.ERROR, message: errorMessage(error) });
}
