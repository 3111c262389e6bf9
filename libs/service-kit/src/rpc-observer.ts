import { processLogger, rpcServerSeconds, withLogContext, type LogFields } from '@petstore/observability';
import { rpcErrorBodyOf } from './rpc-error.filter';

/** Asked all day by the gateway's readiness: its lines are debug, not info. */
const ROUTINE_PATTERNS = new Set(['health.check']);

/**
 * Around every RPC handler (`@RpcHandler`): the request's id (from the payload the gateway sent)
 * bound as the log context of everything the handler does, its latency in
 * petstore_rpc_server_duration_seconds by pattern and status (ok or the error code the gateway
 * receives), and one line when answered. Plain promise code, not a Nest interceptor: any
 * interceptor makes Nest wrap every answer in rxjs pipelines, about a tenth of the catalog's CPU
 * per read (docs/BENCHMARKS-HISTORY.md, "The NATS hop, third round").
 */
export function observeRpcHandling<T>(pattern: string, request: unknown, handle: () => T | Promise<T>): Promise<T> {
  const requestId = (request as { requestId?: unknown } | null)?.requestId;
  const fields: LogFields = typeof requestId === 'string' ? { requestId } : {};
  return withLogContext(fields, async () => {
    const started = performance.now();
    let status = 'ok';
    try {
      return await handle();
    } catch (error) {
      status = rpcErrorBodyOf(error).code;
      throw error;
    } finally {
      const seconds = (performance.now() - started) / 1000;
      rpcServerSeconds.observe({ pattern, status }, seconds);
      const level = ROUTINE_PATTERNS.has(pattern) ? 'debug' : 'info';
      const durationMs = Math.round(seconds * 10_000) / 10;
      processLogger()[level]({ pattern, status, durationMs }, `${pattern} ${status} ${durationMs} ms`);
    }
  });
}
