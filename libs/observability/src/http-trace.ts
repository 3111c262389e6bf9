import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ROUTINE_PATH } from './http';
import { startSpan } from './span';
import { tracingEnabled } from './tracing';

const httpTracer = trace.getTracer('@petstore/http');

/** The server span of each request being handled; a request that ends (answered or aborted) ends its span once. */
const serverSpans = new WeakMap<FastifyRequest, Span>();

/**
 * One HTTP server span per request, made from Fastify's hooks: named after the matched route
 * (`POST /v1/store/orders/:orderId`), child of the client's `traceparent`, and current for
 * everything the request does after this hook (body parsing, validation, the handler, the RPC
 * call that carries it on). Add it before the hooks whose work belongs in the span.
 *
 * Not `@opentelemetry/instrumentation-http`: it patches `node:http` and binds every request's
 * and response's emitters to the context, which cost the gateway as much CPU per request as
 * the rest of tracing together (docs/BENCHMARKS-HISTORY.md, "A server span from Fastify's
 * hooks"), and it sees only the raw URL, not the route.
 * Registers nothing when tracing is off (tracing.ts), so requests pay for no hook.
 */
export function traceHttpRequests(app: FastifyInstance): void {
  if (!tracingEnabled()) return;
  app.addHook('onRequest', (request, _reply, done) => {
    // Scrapes and probes are not requests anyone follows: one span each would drown the traces.
    if (ROUTINE_PATH.test(request.url)) return done();
    const route = request.routeOptions.url;
    const parent = propagation.extract(ROOT_CONTEXT, request.headers);
    const span = startSpan(
      httpTracer,
      route ? `${request.method} ${route}` : request.method,
      { kind: SpanKind.SERVER, attributes: () => requestAttributes(request, route) },
      parent,
    );
    serverSpans.set(request, span);
    context.with(trace.setSpan(parent, span), done);
  });
  app.addHook('onResponse', (request, reply, done) => {
    endServerSpan(request, reply.statusCode);
    done();
  });
  app.addHook('onRequestAbort', (request, done) => {
    endServerSpan(request, undefined);
    done();
  });
}

function requestAttributes(request: FastifyRequest, route: string | undefined): Record<string, string> {
  const target = request.raw.url ?? '/';
  const query = target.indexOf('?');
  const attributes: Record<string, string> = {
    'http.request.method': request.method,
    'url.scheme': request.protocol,
    'url.path': query < 0 ? target : target.slice(0, query),
    'network.protocol.version': request.raw.httpVersion,
  };
  if (route) attributes['http.route'] = route;
  const userAgent = request.headers['user-agent'];
  if (userAgent) attributes['user_agent.original'] = userAgent;
  return attributes;
}

/** `status` undefined: the client went away before an answer. A 5xx is the server's failure; a 4xx is an answer. */
function endServerSpan(request: FastifyRequest, status: number | undefined): void {
  const span = serverSpans.get(request);
  if (!span) return;
  serverSpans.delete(request);
  if (status === undefined) {
    span.setAttribute('error.type', 'aborted');
  } else {
    span.setAttribute('http.response.status_code', status);
    if (status >= 500) {
      span.setAttribute('error.type', String(status));
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
  }
  span.end();
}
