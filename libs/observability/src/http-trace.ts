import { trace } from '@opentelemetry/api';

/**
 * Names the HTTP server span of the request being handled after its route
 * (`POST /v1/store/orders/:orderId`) and sets `http.route`: instrumentation-http sees only the
 * method and the raw URL; the framework knows the route. Nothing happens when nothing traces.
 */
export function nameHttpServerSpan(method: string, route: string | undefined): void {
  if (!route) return;
  const span = trace.getActiveSpan();
  if (!span?.isRecording()) return;
  span.updateName(`${method} ${route}`);
  span.setAttribute('http.route', route);
}
