import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { getNumberFromEnv, W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { samplerFor, samplerSettings } from './trace-sampler';
import type { TracingOptions } from './tracing';

/**
 * The tracing SDK of one process: W3C trace context, AsyncLocalStorage context, the sampler of
 * OTEL_TRACES_SAMPLER / OTEL_TRACES_SAMPLER_ARG (default: parent-based, every trace; see
 * trace-sampler.ts), spans batched to OTLP/HTTP (protobuf; endpoint, headers and timeout from
 * the standard OTEL_EXPORTER_OTLP_* variables, batching from OTEL_BSP_*), and the pg
 * instrumentation. `publicEdge`: see `samplerFor`. HTTP server spans come from the gateway's
 * Fastify hooks (http-trace.ts); the services' HTTP ports serve only probes and scrapes, and no
 * process of the store calls out over HTTP but the exporter itself.
 *
 * Kafka has no instrumentation here on purpose: an auto-instrumentation of kafkajs would
 * start the publish span in the relay's context, not in that of the request that wrote the
 * outbox row, so libs/messaging makes its producer and consumer spans itself from the row's carrier.
 */
export function registerTracingSdk(serviceName: string, { publicEdge = false }: TracingOptions = {}): TracerProvider {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  const provider = new TracerProvider({
    resource: defaultResource().merge(resourceFromAttributes({ 'service.name': serviceName })),
    sampler: samplerFor(samplerSettings(), { publicEdge }),
    spanProcessors: [
      new BatchSpanProcessor({
        exporter: new OTLPTraceExporter(),
        scheduledDelayMillis: getNumberFromEnv('OTEL_BSP_SCHEDULE_DELAY'),
        maxExportBatchSize: getNumberFromEnv('OTEL_BSP_MAX_EXPORT_BATCH_SIZE'),
        maxQueueSize: getNumberFromEnv('OTEL_BSP_MAX_QUEUE_SIZE'),
        exportTimeoutMillis: getNumberFromEnv('OTEL_BSP_EXPORT_TIMEOUT'),
      }),
    ],
  });
  trace.setGlobalTracerProvider(provider);
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      // Queries outside a request or an event (the relay's claims, the sweeps) would each be a trace of their own.
      new PgInstrumentation({ requireParentSpan: true }),
    ],
  });
  // Spans still queued when the process ends on its own are sent, not dropped.
  process.once('beforeExit', () => void provider.shutdown());
  return provider;
}
