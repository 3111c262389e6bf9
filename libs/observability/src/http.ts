import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { Counter, Histogram } from 'prom-client';
import { withLogContext } from './log-context';
import { LATENCY_BUCKETS, processMetric } from './metrics';

export const httpRequests = processMetric(
  'petstore_http_requests_total',
  (name) =>
    new Counter({
      name,
      help: 'HTTP requests answered, by method, route (the route pattern, "unmatched" for none) and status',
      labelNames: ['method', 'route', 'status'],
    }),
);

export const httpRequestSeconds = processMetric(
  'petstore_http_request_duration_seconds',
  (name) =>
    new Histogram({
      name,
      help: 'Time from a request received to its response sent, by method, route and status',
      labelNames: ['method', 'route', 'status'],
      buckets: LATENCY_BUCKETS,
    }),
);

/**
 * Probes and scrapes (a route or a request target): polled all day, so their lines are debug,
 * not info, and they are not traced.
 */
export const ROUTINE_PATH = /^\/(health|metrics)(\/|\?|$)/;

export interface ObserveHttpOptions {
  logger: Logger;
  /**
   * Bind `request.id` as the log context's requestId for all the work of the request (the
   * gateway, whose ids are the clients' X-Request-Id). Services' HTTP ports only serve probes.
   */
  bindRequestId?: boolean;
}

/**
 * Counts and times every response of `app` and writes one line per request. Add it before
 * the routes are registered.
 */
export function observeHttp(app: FastifyInstance, { logger, bindRequestId = false }: ObserveHttpOptions): void {
  if (bindRequestId) {
    // Everything after this hook (body parsing, validation, the handler, the response) runs inside.
    app.addHook('onRequest', (request, _reply, done) => withLogContext({ requestId: request.id }, done));
  }
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const status = String(reply.statusCode);
    const labels = { method: request.method, route, status };
    httpRequests.inc(labels);
    httpRequestSeconds.observe(labels, reply.elapsedTime / 1000);
    const level = ROUTINE_PATH.test(route) ? 'debug' : 'info';
    if (logger.isLevelEnabled(level)) {
      const durationMs = Math.round(reply.elapsedTime * 10) / 10;
      logger[level]({ ...labels, durationMs }, `${request.method} ${route} ${status} ${durationMs} ms`);
    }
    done();
  });
}
