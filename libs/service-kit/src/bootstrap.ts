import { type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Transport, type MicroserviceOptions } from '@nestjs/microservices';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { RpcErrorFilter } from './rpc-error.filter';
import { logLevelsFrom } from '@petstore/config';
import type { ServiceConfig } from './service-config';

/**
 * Starts a service process: the TCP transport the gateway talks to, and a small HTTP
 * server for the health endpoints. Shutdown hooks let the outbox relay and the Kafka
 * consumer finish their current work on SIGTERM.
 */
export async function bootstrapService(module: unknown, config: ServiceConfig): Promise<INestApplication> {
  const app = await NestFactory.create<NestFastifyApplication>(module as never, new FastifyAdapter(), {
    logger: logLevelsFrom(config.logLevel),
  });
  app.enableShutdownHooks();
  // A hybrid app's microservice only sees global filters it inherits from the app.
  app.useGlobalFilters(new RpcErrorFilter(app.getHttpAdapter()));
  app.connectMicroservice<MicroserviceOptions>(
    { transport: Transport.TCP, options: { host: config.host, port: config.rpcPort } },
    { inheritAppConfig: true },
  );
  await app.startAllMicroservices();
  await app.listen(config.httpPort, config.host);
  return app;
}
