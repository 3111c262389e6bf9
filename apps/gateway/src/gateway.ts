import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppModule } from './app.module';
import { logLevelsFrom } from '@petstore/config';
import type { GatewayConfig } from './config';
import { clientErrorHandler } from './http/client-error';
import { BODY_LIMIT, registerBodyParsers } from './http/json-body';
import { genReqId } from './http/request-id';
import { RequestGate } from './http/request-gate';

/**
 * Builds the gateway without listening: `main.ts` listens on the configured port, the tests
 * on a free one. Everything per request that can be decided once is decided here or at
 * module init (keys hashed, schemas compiled, the OpenAPI document serialized).
 */
export async function createGateway(config: GatewayConfig): Promise<NestFastifyApplication> {
  // The gate is a Nest provider, so it exists only once the adapter has been handed to Nest.
  const late: { gate?: RequestGate } = {};
  const adapter = new FastifyAdapter({
    bodyLimit: BODY_LIMIT,
    genReqId,
    logger: false,
    clientErrorHandler,
    // Requests Fastify cannot route (bad percent-encoding, a too-long parameter) still get the Error shape.
    frameworkErrors: (error: Error, request: FastifyRequest, reply: FastifyReply) => {
      if (late.gate) late.gate.onFrameworkError(error, request, reply);
      else reply.code(503).send();
    },
  });
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config), adapter, {
    bodyParser: false,
    logger: logLevelsFrom(config.logLevel),
  });
  const requestGate = app.get(RequestGate);
  late.gate = requestGate;
  const fastify = adapter.getInstance();
  fastify.decorateRequest('operation', null);
  fastify.decorateRequest('principal', null);
  registerBodyParsers(fastify);
  fastify.addHook('onRequest', requestGate.onRequest);
  fastify.addHook('preHandler', requestGate.preHandler);
  if (config.logLevel === 'debug' || config.logLevel === 'verbose') {
    const logger = new Logger('HTTP');
    fastify.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done) => {
      logger.debug(`${request.method} ${request.url} ${reply.statusCode} ${reply.elapsedTime.toFixed(1)} ms [${request.id}]`);
      done();
    });
  }
  app.enableShutdownHooks();
  return app;
}
