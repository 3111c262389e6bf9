import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction, HTTPMethods } from 'fastify';
import { ApiKeyring, type ApiPrincipal } from '../auth/api-keys';
import { RateLimiter, type RateLimit, type RateLimitDecision } from '../auth/rate-limiter';
import { grants, requiredScope } from '../auth/scopes';
import type { GatewayConfig } from '../config';
import { ApiError, pathOf, sendError, validationFailed } from './api-error';
import { answeredBeforeBody, MAX_URL_LENGTH } from './client-error';

declare module 'fastify' {
  interface FastifyRequest {
    /** The API key that authenticated the request. */
    principal: ApiPrincipal | null;
  }
}

/** Paths served without an API key: the public routes' patterns, or the path of a request no route matched. */
const PUBLIC_PATH = /^\/(?:openapi\.json|docs(?:\/.*)?|health\/(?:live|ready))$/s;

const UNAUTHORIZED = new ApiError('UNAUTHORIZED', 'A valid API key is required: Authorization: Bearer <key>', undefined, { 'www-authenticate': 'Bearer' });
const METHODS: HTTPMethods[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/**
 * An absolute-form target (`GET http://host/v1/pets`) is served by its path: the authority is
 * the client's to choose and never ends up in a `Link`. A target whose percent-encoding decodes
 * to no UTF-8 text is routed with its `%` taken literally, so that it reaches its operation's
 * checks (scope, deprecation headers, sunset) and is refused there as a malformed id.
 */
export function rewriteUrl(url: string): string {
  const target = url.startsWith('/') ? url : url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '') || '/';
  const path = pathOf(target);
  try {
    decodeURIComponent(path);
    return target;
  } catch {
    return path.replace(/%/g, '%25') + target.slice(path.length);
  }
}

/**
 * Headers a request must not repeat (API.md §4); Node keeps the first `Host` and `Authorization`
 * silently. (`fastify.inject` requests have no `headersDistinct`, and no repeated headers.)
 */
const sentTwice = (request: FastifyRequest, name: string): boolean => (request.raw.headersDistinct?.[name]?.length ?? 0) > 1;

/** For a request no route serves: 405 with `Allow` when the path is served with other methods, else 404. */
function routeNotFound(request: FastifyRequest): ApiError {
  const path = pathOf(request.url);
  const allowed = METHODS.filter((method) => request.server.findRoute({ method, url: path }) !== null);
  if (allowed.length > 0 && !allowed.includes(request.method as HTTPMethods)) {
    return new ApiError('METHOD_NOT_ALLOWED', `${request.method} is not allowed on ${path}`, undefined, { allow: allowed.join(', ') });
  }
  return new ApiError('NOT_FOUND', `There is nothing at ${path}`);
}

/**
 * The checks that precede the request's form, as one `onRequest` hook: Fastify reads the body
 * (413, 400) after it, so anything that must win over a bad body runs here. Order (API.md §4):
 * the request as HTTP, authentication, rate limit, authorisation, sunset; every request no
 * route serves, public path or not, answers 404/405 here, before a body nobody wants is read.
 */
export function requestGate(config: GatewayConfig, limiter: RateLimit | undefined) {
  const keyring = new ApiKeyring(config.apiKeys);

  /** A limit counted in Redis answers later: the checks after it wait for it. */
  function refusal(request: FastifyRequest, reply: FastifyReply): ApiError | undefined | Promise<ApiError | undefined> {
    const { raw } = request;
    if (raw.headers.host === undefined && raw.httpVersion === '1.1') return new ApiError('BAD_REQUEST', 'An HTTP/1.1 request needs a Host header');
    if (sentTwice(request, 'host')) return new ApiError('BAD_REQUEST', 'The request has more than one Host header');
    if ((request.originalUrl ?? raw.url ?? '').length > MAX_URL_LENGTH) return new ApiError('URI_TOO_LONG', `The request target is longer than ${MAX_URL_LENGTH} characters`);
    if (raw.headers['content-encoding']?.split(',').some((coding) => coding.trim().toLowerCase() !== 'identity')) {
      return new ApiError('UNSUPPORTED_CONTENT_ENCODING', 'Request bodies are not compressed: send them without Content-Encoding');
    }

    const route = request.routeOptions;
    // A route's own pattern; for a request no route matched, its path decoded and without empty
    // segments, so that no spelling of a path escapes its area.
    const path = route.url ?? decodeURIComponent(pathOf(request.url)).replace(/\/{2,}/g, '/');
    if (PUBLIC_PATH.test(path)) return route.url === undefined ? routeNotFound(request) : undefined;
    const { deprecation } = route.config;
    if (deprecation) {
      const params = request.params as Record<string, string>;
      const successor = deprecation.successor.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(params[name] ?? ''));
      reply.header('deprecation', `@${Math.floor(Date.parse(deprecation.since) / 1000)}`).header('sunset', deprecation.sunset.toUTCString());
      reply.header('link', `<${successor}>; rel="successor-version"`);
    }

    if (sentTwice(request, 'authorization')) return validationFailed([{ field: 'Authorization', message: 'must be sent once' }]);
    const principal = keyring.authenticate(raw.headers.authorization);
    if (principal === undefined) return UNAUTHORIZED;
    request.principal = principal;
    // Read where the handler reads it: a repeated key must not pass as one joined value.
    if (sentTwice(request, 'idempotency-key')) raw.headers['idempotency-key'] = raw.headersDistinct['idempotency-key'];

    if (!limiter) return afterRateLimit(request, path);
    const limited = (decision: RateLimitDecision): ApiError | undefined => {
      reply.header('ratelimit-policy', limiter.policyHeader).header('ratelimit', RateLimiter.header(decision));
      if (!decision.allowed) {
        return new ApiError('RATE_LIMITED', `Rate limit of ${limiter.quota} requests per second exceeded`, undefined, { 'retry-after': String(decision.resetSeconds) });
      }
      return afterRateLimit(request, path);
    };
    const decision = limiter.take(principal.name);
    return decision instanceof Promise ? decision.then(limited) : limited(decision);
  }

  function afterRateLimit(request: FastifyRequest, path: string): ApiError | undefined {
    const route = request.routeOptions;
    const { deprecation } = route.config;
    const principal = request.principal as ApiPrincipal;
    const scope = requiredScope(request.method, path);
    if (scope !== undefined && !grants(principal.scopes, scope)) return new ApiError('FORBIDDEN', `The API key lacks the scope ${scope}`);

    if (deprecation && Date.now() >= deprecation.sunset.getTime()) {
      return new ApiError('ENDPOINT_SUNSET', `This operation was retired on ${deprecation.sunset.toUTCString()}; use ${deprecation.successor}`);
    }
    return route.url === undefined ? routeNotFound(request) : undefined;
  }

  return (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    reply.header('x-request-id', request.id);
    const answer = (refused: ApiError | undefined): void => {
      if (refused === undefined) return done();
      answeredBeforeBody.add(request.raw.socket);
      sendError(reply, refused);
    };
    const refused = refusal(request, reply);
    if (refused instanceof Promise) refused.then(answer, done);
    else answer(refused);
  };
}
