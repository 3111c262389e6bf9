import fastifySwagger from '@fastify/swagger';
import { Logger } from '@nestjs/common';
import { nameHttpServerSpan, observeHttp, processLogger, useNestLogger } from '@petstore/observability';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest, type RouteOptions } from 'fastify';
import { categoriesOperations } from './categories/categories.routes';
import { namedSchemas } from './common/schemas';
import type { GatewayConfig } from './config';
import { registerDocs } from './docs/docs.routes';
import { registerHealth } from './health/health.routes';
import { ApiError, internalError, pathOf, sendError, validationFailed } from './http/api-error';
import { clientErrorHandler, expectationFailed, MAX_URL_LENGTH } from './http/client-error';
import { registerBodyParsers } from './http/json-body';
import { swaggerOptions } from './http/openapi';
import { toRoute } from './http/operation';
import { createRateLimit } from './auth/rate-limiter';
import { requestGate, rewriteUrl } from './http/request-gate';
import { requestIdFor } from './http/request-id';
import { requestFormDetails, validatorCompiler } from './http/validation';
import { inventoryOperations } from './inventory/inventory.routes';
import { ordersOperations } from './orders/orders.routes';
import { petsOperations } from './pets/pets.routes';
import { Upstream } from './upstream/upstream';

/**
 * How long a request may take to arrive (headers and body together, API.md §4: 408 after it;
 * also the bound of the headers alone), and how many connections are open at once.
 */
const HTTP_LIMITS = { requestTimeoutMs: 10_000, maxConnections: 4096 };
export type HttpLimits = typeof HTTP_LIMITS;

const logger = new Logger('Gateway');

/** Every error leaves as the Error object; bugs are logged and answered 500 without their text. */
function toApiError(error: FastifyError, request: FastifyRequest): ApiError {
  // A part of the request broke its schema: Fastify stops at the first part, the answer names every problem.
  if (error.validationContext !== undefined) return validationFailed(requestFormDetails(request));
  if (error instanceof ApiError) return error;
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return new ApiError('PAYLOAD_TOO_LARGE', 'The request body is larger than 64 KiB');
  if (error.code === 'FST_ERR_CTP_INVALID_CONTENT_LENGTH') return new ApiError('BAD_REQUEST', 'The request body does not match its Content-Length');
  logger.error(`${request.method} ${pathOf(request.url)} [${request.id}] failed: ${error.stack ?? error.message}`);
  return internalError();
}

function onError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  // A client that went away mid-request gets no answer.
  if (request.raw.socket?.destroyed) return;
  sendError(reply, toApiError(error, request));
}

/**
 * Builds the gateway without listening: `main.ts` listens on the configured port, the tests on
 * a free one. Everything per request that can be decided once is decided here (keys hashed,
 * schemas compiled, the OpenAPI document serialized at ready).
 */
export async function createGateway(config: GatewayConfig, limits: Partial<HttpLimits> = {}, onRoute?: (route: RouteOptions) => void): Promise<FastifyInstance> {
  const { requestTimeoutMs, maxConnections } = { ...HTTP_LIMITS, ...limits };
  useNestLogger(config.logLevel);
  const app = Fastify({
    logger: false,
    bodyLimit: 64 * 1024,
    // The id becomes `request.id`, so it is decided once, before routing.
    genReqId: (raw) => requestIdFor(raw.headers['x-request-id']),
    clientErrorHandler,
    rewriteUrl: (raw) => rewriteUrl(raw.url ?? '/'),
    requestTimeout: requestTimeoutMs,
    // Ids longer than the default 100 characters still reach their operation, to be refused as ids.
    routerOptions: { maxParamLength: MAX_URL_LENGTH },
    http: { requireHostHeader: false, headersTimeout: requestTimeoutMs, connectionsCheckingInterval: Math.min(1000, requestTimeoutMs / 2) },
  });
  app.server.maxConnections = maxConnections;
  app.server.on('checkExpectation', expectationFailed);
  observeHttp(app, { logger: processLogger(), bindRequestId: true });

  const upstream = new Upstream(config);
  app.addHook('onClose', () => upstream.close());
  app.decorateRequest('principal', null);
  for (const schema of namedSchemas()) app.addSchema(schema);
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  registerBodyParsers(app);
  app.addHook('onRequest', async (request) => nameHttpServerSpan(request.method, request.routeOptions.url));
  const rateLimit = createRateLimit(config);
  app.addHook('onClose', async () => rateLimit?.close());
  app.addHook('onRequest', requestGate(config, rateLimit));
  app.setErrorHandler(onError);

  await app.register(fastifySwagger, swaggerOptions);
  if (onRoute) app.addHook('onRoute', onRoute);
  const operations = [...petsOperations(upstream, config), ...categoriesOperations(upstream), ...ordersOperations(upstream, config), ...inventoryOperations(upstream)];
  for (const operation of operations) app.route(toRoute(operation, config.petsV1Sunset));
  registerHealth(app, upstream);
  registerDocs(app);
  return app;
}
