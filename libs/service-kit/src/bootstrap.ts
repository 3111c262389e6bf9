import { Module, type DynamicModule, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ServerTCP, type CustomStrategy } from '@nestjs/microservices';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { observeHttp, processLogger, registerMetricsRoute, useNestLogger } from '@petstore/observability';
import { NatsRpcServer } from '@petstore/rpc';
import { ServiceLifecycle, SERVICE_NAME } from './health.module';
import { RpcErrorFilter } from './rpc-error.filter';
import type { ServiceConfig } from './service-config';

const STOP_SIGNALS = ['SIGTERM', 'SIGINT'] as const;

/**
 * Starts a service process: its RPC server (NATS, or TCP with RPC_TRANSPORT=tcp) and a small HTTP
 * server for the health endpoints and `GET /metrics`. `name` is the service's queue group and the
 * middle of its subjects; by default the name the service gave its HealthModule.
 *
 * SIGTERM (or SIGINT) stops it without failing a request: readiness says no at once, the service
 * keeps serving for SHUTDOWN_DELAY_MS, then leaves the queue group and answers what it already
 * took (at most DRAIN_TIMEOUT_MS), and only then lets the Kafka consumer finish its batch, the
 * outbox relay publish what waits, and the database close (Nest's shutdown hooks), and exits.
 */
export async function bootstrapService(module: unknown, config: ServiceConfig, name?: string): Promise<INestApplication> {
  // The health routes answer for themselves while the server closes, never with Fastify's own 503 body.
  const adapter = new FastifyAdapter({ return503OnClosing: false });
  // On the Fastify instance before Nest registers its routes, so the hooks apply to them.
  observeHttp(adapter.getInstance(), { logger: processLogger() });
  registerMetricsRoute(adapter.getInstance());
  const lifecycle = new ServiceLifecycle();
  // abortOnError false: a failure throws to the caller (runService logs it and exits) instead of Nest exiting on its own.
  const app = await NestFactory.create<NestFastifyApplication>(withLifecycle(module, lifecycle), adapter, { logger: useNestLogger(config.logLevel), abortOnError: false });
  // A hybrid app's microservice only sees global filters and interceptors it inherits from the app.
  app.useGlobalFilters(new RpcErrorFilter(app.getHttpAdapter()));
  const service = name ?? app.get<string>(SERVICE_NAME, { strict: false });
  if (config.rpcTransport === 'nats' && !service) throw new Error('bootstrapService needs the service name: pass it, or import HealthModule.forRoot(name)');
  const rpcServer =
    config.nats
      ? new NatsRpcServer({ servers: config.natsServers, subjectPrefix: config.natsSubjectPrefix, service: service as string, credentials: config.nats })
      : new ServerTCP({ host: config.host, port: config.rpcPort });
  app.connectMicroservice<CustomStrategy>({ strategy: rpcServer }, { inheritAppConfig: true });
  // Before listening: Fastify takes hooks only until then.
  stopGracefullyOnSignals(app, config, rpcServer, lifecycle);
  await app.startAllMicroservices();
  await app.listen(config.httpPort, config.host);
  return app;
}

@Module({})
class ServiceRootModule {}

/** The service's module, with the process's lifecycle given to every module (HealthModule reads it). */
function withLifecycle(module: unknown, lifecycle: ServiceLifecycle): DynamicModule {
  return {
    module: ServiceRootModule,
    global: true,
    imports: [module as DynamicModule],
    providers: [{ provide: ServiceLifecycle, useValue: lifecycle }],
    exports: [ServiceLifecycle],
  };
}

function stopGracefullyOnSignals(app: INestApplication, config: ServiceConfig, rpcServer: NatsRpcServer | ServerTCP, lifecycle: ServiceLifecycle): void {
  let stopping: Promise<void> | undefined;
  const stop = async (signal: string): Promise<void> => {
    const logger = processLogger();
    logger.info({ signal }, `${signal}: stopping; readiness says no, serving ${config.shutdownDelayMs} ms more`);
    lifecycle.stopping = true;
    await new Promise((resolve) => setTimeout(resolve, config.shutdownDelayMs));
    if (rpcServer instanceof NatsRpcServer) {
      await rpcServer.stopTakingRequests(config.drainTimeoutMs);
      logger.info('Left the queue group and answered the RPC requests already taken');
    }
    await app.close();
  };
  const onSignal = (signal: string): void => {
    // A second signal while stopping changes nothing: the first stop finishes.
    stopping ??= stop(signal).then(
      () => process.exit(0),
      (error: unknown) => {
        processLogger().error({ err: error }, `Stopping failed: ${error instanceof Error ? error.message : String(error)}`);
        process.exit(1);
      },
    );
  };
  for (const signal of STOP_SIGNALS) process.on(signal, onSignal);
  // A test closes the app itself: the process's signals are no longer this app's.
  const fastify = app.getHttpAdapter().getInstance() as { addHook(name: 'onClose', hook: () => void): void };
  fastify.addHook('onClose', () => {
    for (const signal of STOP_SIGNALS) process.off(signal, onSignal);
  });
}
