import { OTLPExporterBase } from '@opentelemetry/otlp-exporter-base';
import { convertLegacyHttpOptions, createOtlpHttpExportDelegate } from '@opentelemetry/otlp-exporter-base/node-http';
import { ProtobufTraceSerializer, TraceExporterMetricsHelper } from '@opentelemetry/otlp-transformer';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';

/**
 * Spans to OTLP/HTTP in protobuf: smaller bodies than OTLP JSON, and written straight into a
 * buffer instead of a JSON tree of every span with its ids in hex and then stringified. Endpoint, headers,
 * compression and timeout come from the standard OTEL_EXPORTER_OTLP_* variables.
 *
 * This is what `@opentelemetry/exporter-trace-otlp-proto` 0.301.0 builds, from the two packages
 * it would bring (already here as dependencies of exporter-trace-otlp-http 0.301.0); with that
 * package installed this file becomes `new OTLPTraceExporter()` imported from it.
 */
export class OtlpProtoTraceExporter extends OTLPExporterBase<ReadableSpan[]> {
  constructor() {
    super(
      createOtlpHttpExportDelegate(
        convertLegacyHttpOptions({}, 'TRACES', 'v1/traces', { 'Content-Type': 'application/x-protobuf' }),
        ProtobufTraceSerializer,
        'otlp_http_span_exporter',
        TraceExporterMetricsHelper,
        undefined,
      ),
    );
  }
}
