import fastifySwagger from '@fastify/swagger';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { observeHttp, processLogger, traceHttpRequests, useNestLogger } from '@petstore/observability';
import Fastify, { type RouteOptions } from 'fastify';
import { namedSchemas } from './common/schemas';
import type { GatewayConfig } from './config';
import { GatewayModule } from './gateway.module';
import { clientErrorHandler, expectationFailed, MAX_URL_LENGTH } from './http/client-error';
import { registerBodyParsers } from './http/json-body';
import { swaggerOptions } from './http/openapi';
import { withSunset } from './http/operation';
import { RequestGate, rewriteUrl } from './http/request-gate';
import { requestIdFor } from './http/request-id';
import { validatorCompiler } from './http/validation';

/**
 * How long a request may take to arrive (headers and body together, API.md §4: 408 after it;
 * also the bound of the headers alone), and how many connections are open at once.
 */
const HTTP_LIMITS = { requestTimeoutMs: 10_000, maxConnections: 4096 };
export type HttpLimits = typeof HTTP_LIMITS;

/**
 * Builds the gateway without listening: `main.ts` listens on the configured port, the tests on
 * a free one. A Nest application (GatewayModule: controllers and providers) over a Fastify
 * instance configured here first, because what runs before a route handler, or for a request no
 * route serves, is Fastify's: Nest's guards, pipes and filters run only once a handler is
 * reached. Everything per request that can be decided once is decided at start (keys hashed,
 * schemas compiled, the OpenAPI document serialized at ready).
 */
export async function createGateway(config: GatewayConfig, limits: Partial<HttpLimits> = {}, onRoute?: (route: RouteOptions) => void): Promise<NestFastifyApplication> {
  const { requestTimeoutMs, maxConnections } = { ...HTTP_LIMITS, ...limits };
  const logger = useNestLogger(config.logLevel);
  const fastify = Fastify({
    logger: false,
    bodyLimit: 64 * 1024,
    // The id becomes `request.id`, so it is decided once, before routing.
    genReqId: (raw) => requestIdFor(raw.headers['x-request-id']),
    clientErrorHandler,
    rewriteUrl: (raw) => rewriteUrl(raw.url ?? '/'),
    requestTimeout: requestTimeoutMs,
    // While stopping, the request gate answers in the Error object, not Fastify with its own body.
    return503OnClosing: false,
    // Ids longer than the default 100 characters still reach their operation, to be refused as ids.
    routerOptions: { maxParamLength: MAX_URL_LENGTH },
    http: { requireHostHeader: false, headersTimeout: requestTimeoutMs, connectionsCheckingInterval: Math.min(1000, requestTimeoutMs / 2) },
  });
  fastify.server.maxConnections = maxConnections;
  // Node's, not Fastify's: an `Expect` is answered before any request exists.
  fastify.server.on('checkExpectation', expectationFailed);
  // Hooks for the request's span, metrics and the log context: they must see every request, matched or not.
  traceHttpRequests(fastify);
  observeHttp(fastify, { logger: processLogger(), bindRequestId: true });
  fastify.decorateRequest('principal', null);
  // The validator compiler: Fastify compiles every route schema once, at registration, and validates before the handler.
  for (const schema of namedSchemas()) fastify.addSchema(schema);
  fastify.setValidatorCompiler(validatorCompiler);
  fastify.setSerializerCompiler(() => (data) => JSON.stringify(data));
  // The body parsers (Nest's own are switched off below): strict UTF-8 JSON, within Fastify's body limit.
  registerBodyParsers(fastify);
  // The request gate is a Nest provider in a Fastify hook: it must run before the body is read and
  // for paths no route serves, and before the adapter's own onRequest hooks (added when it is
  // created), which answer a target such as `*v1/pets` 404 before authentication.
  // (`gate` is taken from the application below, before any request can arrive.)
  fastify.addHook('onRequest', (request, reply, done) => gate.onRequest(request, reply, done));
  // @fastify/swagger collects the routes as they are registered, so it comes before them.
  await fastify.register(fastifySwagger, swaggerOptions);
  fastify.addHook('onRoute', withSunset(config.petsV1Sunset));
  if (onRoute) fastify.addHook('onRoute', onRoute);

  const app = await NestFactory.create<NestFastifyApplication>(GatewayModule.forRoot(config), new FastifyAdapter(fastify), { bodyParser: false, logger, abortOnError: false });
  const gate = app.get(RequestGate);
  await app.init();
  return app;
}
