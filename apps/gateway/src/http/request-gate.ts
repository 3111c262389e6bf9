import { Inject, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { ApiKeyring, type ApiPrincipal } from '../auth/api-keys';
import { RateLimiter } from '../auth/rate-limiter';
import { grants, requiredScope } from '../auth/scopes';
import { GATEWAY_CONFIG, type GatewayConfig } from '../config';
import type { GatewayRouteConfig } from '../operations/operation.decorator';
import { OperationsRegistry, type CompiledOperation } from '../operations/operations.registry';
import { ApiError, validationFailed } from './api-error';
import { routeNotFound } from './route-not-found';
import { pathOf, sendError } from './send-error';

declare module 'fastify' {
  interface FastifyRequest {
    /** The operation the route serves; null for unknown routes and the public ones. */
    operation: CompiledOperation | null;
    /** The API key that authenticated the request. */
    principal: ApiPrincipal | null;
  }
}

const PUBLIC_PATHS = new Set(['/openapi.json', '/docs', '/health/live', '/health/ready']);

/** Paths served without an API key; for a request no route matched, where the route config is not there. */
export function isPublicPath(path: string): boolean {
  return PUBLIC_PATHS.has(path) || path.startsWith('/docs/');
}

const UNAUTHORIZED = new ApiError(
  'UNAUTHORIZED',
  'A valid API key is required: Authorization: Bearer <key>',
  undefined,
  { 'www-authenticate': 'Bearer' },
);

/**
 * The checks that precede the request's form, as Fastify hooks: Fastify parses the body
 * (413, 400) between `onRequest` and `preHandler`, so anything that must win over a bad body
 * runs in `onRequest`. Order (API.md §4): authentication, rate limit, authorisation, sunset;
 * then, in `preHandler`, the form of the path, query and body.
 */
@Injectable()
export class RequestGate {
  private readonly keyring: ApiKeyring;
  private readonly limiter: RateLimiter | undefined;

  constructor(
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
    private readonly registry: OperationsRegistry,
  ) {
    this.keyring = new ApiKeyring(config.apiKeys);
    this.limiter = config.rateLimitPerSecond > 0 ? new RateLimiter(config.rateLimitPerSecond) : undefined;
  }

  readonly onRequest = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    const route = request.routeOptions.config as GatewayRouteConfig | undefined;
    if (!this.admit(request, reply, route)) return;
    // No route: answered here, before Fastify would read (and judge) a body nobody wants.
    if (route?.url === undefined) return sendError(reply, request.id, routeNotFound(request));
    done();
  };

  /** Runs the checks before the body; false when it has answered the request itself. */
  private admit(request: FastifyRequest, reply: FastifyReply, route: GatewayRouteConfig | undefined): boolean {
    reply.header('x-request-id', request.id);
    const operation = route?.operationId !== undefined ? (this.registry.get(route.operationId) ?? null) : null;
    request.operation = operation;
    if (route?.public || (route?.url === undefined && isPublicPath(pathOf(request.url)))) return true;
    const deprecation = operation?.deprecation;
    if (deprecation) {
      const params = request.params as Record<string, string>;
      const successor = deprecation.successor.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(params[name] ?? ''));
      reply.header('deprecation', deprecation.deprecationHeader);
      reply.header('sunset', deprecation.sunsetHeader);
      reply.header('link', `<${successor}>; rel="successor-version"`);
    }

    const principal = this.keyring.authenticate(request.headers.authorization);
    if (principal === undefined) {
      sendError(reply, request.id, UNAUTHORIZED);
      return false;
    }
    request.principal = principal;

    if (this.limiter) {
      const decision = this.limiter.take(principal.name);
      reply.header('ratelimit-policy', this.limiter.policyHeader);
      reply.header('ratelimit', RateLimiter.header(decision));
      if (!decision.allowed) {
        const retryAfter = { 'retry-after': String(decision.resetSeconds) };
        sendError(reply, request.id, new ApiError('RATE_LIMITED', `Rate limit of ${this.limiter.quota} requests per second exceeded`, undefined, retryAfter));
        return false;
      }
    }

    const scope = operation ? operation.scope : requiredScope(request.method, pathOf(request.url));
    if (scope !== undefined && !grants(principal.scopes, scope)) {
      sendError(reply, request.id, new ApiError('FORBIDDEN', `The API key lacks the scope ${scope}`));
      return false;
    }

    if (deprecation && Date.now() >= deprecation.sunset.getTime()) {
      const message = `This operation was retired on ${deprecation.sunsetHeader}; use ${deprecation.successor}`;
      sendError(reply, request.id, new ApiError('ENDPOINT_SUNSET', message));
      return false;
    }
    return true;
  }

  readonly preHandler = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    const operation = request.operation;
    if (operation === null) {
      done();
      return;
    }
    const details = operation.validator.validate(request);
    if (details.length > 0) return sendError(reply, request.id, validationFailed(details));
    done();
  };

  /**
   * Fastify answers a URL it cannot route (bad percent-encoding, an over-long parameter)
   * before any hook; the same checks run first so that such a request is no way around them.
   */
  readonly onFrameworkError = (error: Error, request: FastifyRequest, reply: FastifyReply): void => {
    if (!this.admit(request, reply, undefined)) return;
    const message = /param/i.test(error.message) ? 'has a parameter that is too long' : 'is not a valid request target';
    sendError(reply, request.id, validationFailed([{ field: 'path', message }]));
  };
}
