/**
 * Traces are exported only where an OTLP endpoint is configured. Without one nothing is
 * registered: `@opentelemetry/api` stays a no-op (no spans, no context propagation, no
 * patched modules), so tracing costs next to nothing when it is off.
 */
export function tracingEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(env['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT']?.trim() || env['OTEL_EXPORTER_OTLP_ENDPOINT']?.trim());
}

export interface TracingOptions {
  /** The process takes requests from outside the store (the gateway): a client's sampled flag is not followed (trace-sampler.ts). */
  publicEdge?: boolean;
}

/**
 * Starts exporting traces when OTEL_EXPORTER_OTLP_ENDPOINT (or ..._TRACES_ENDPOINT) is set.
 * Call it before anything imports `pg` (each app's main.ts imports its `tracing.ts`
 * first): the pg instrumentation patches it as it is loaded.
 * `serviceName` is used unless OTEL_SERVICE_NAME says otherwise.
 */
export function startTracing(serviceName: string, options: TracingOptions = {}): void {
  if (!tracingEnabled()) return;
  // Loaded only here, so a process that does not trace never loads the SDK or the instrumentations.
  const { registerTracingSdk } = require('./tracing-sdk') as typeof import('./tracing-sdk');
  registerTracingSdk(process.env['OTEL_SERVICE_NAME']?.trim() || serviceName, options);
}
