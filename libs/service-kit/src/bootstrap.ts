import { type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Transport, type MicroserviceOptions } from '@nestjs/microservices';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { observeHttp, processLogger, registerMetricsRoute, useNestLogger } from '@petstore/observability';
import { RpcErrorFilter } from './rpc-error.filter';
import { RpcObserverInterceptor } from './rpc-observer.interceptor';
import type { ServiceConfig } from './service-config';

/**
 * Starts a service process: the TCP transport the gateway talks to, and a small HTTP
 * server for the health endpoints and `GET /metrics`. Shutdown hooks let the outbox relay
 * and the Kafka consumer finish their current work on SIGTERM.
 */
export async function bootstrapService(module: unknown, config: ServiceConfig): Promise<INestApplication> {
  const adapter = new FastifyAdapter();
  // On the Fastify instance before Nest registers its routes, so the hooks apply to them.
  observeHttp(adapter.getInstance(), { logger: processLogger() });
  registerMetricsRoute(adapter.getInstance());
  const app = await NestFactory.create<NestFastifyApplication>(module as never, adapter, { logger: useNestLogger(config.logLevel) });
  app.enableShutdownHooks();
  // A hybrid app's microservice only sees global filters and interceptors it inherits from the app.
  app.useGlobalFilters(new RpcErrorFilter(app.getHttpAdapter()));
  app.useGlobalInterceptors(new RpcObserverInterceptor());
  app.connectMicroservice<MicroserviceOptions>(
    { transport: Transport.TCP, options: { host: config.host, port: config.rpcPort } },
    { inheritAppConfig: true },
  );
  await app.startAllMicroservices();
  await app.listen(config.httpPort, config.host);
  return app;
}
