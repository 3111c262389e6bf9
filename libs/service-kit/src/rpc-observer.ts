import { Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { PATTERN_METADATA } from '@nestjs/microservices/constants';
import { processLogger, rpcServerSeconds, withLogContext, type LogFields } from '@petstore/observability';
import { finalize, Observable, tap } from 'rxjs';
import { rpcErrorBodyOf } from './rpc-error.filter';

/** Asked all day by the gateway's readiness: its lines are debug, not info. */
const ROUTINE_PATTERNS = new Set(['health.check']);

/**
 * Around every RPC handler: the request's id (from the payload the gateway sent) bound as the
 * log context of everything the handler does, its latency in petstore_rpc_server_duration_seconds
 * by pattern and status (ok or the error code the gateway receives), and one line when answered.
 */
@Injectable()
export class RpcObserverInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'rpc') return next.handle();
    const rpc = context.switchToRpc();
    const pattern = patternName(context.getHandler());
    const requestId = (rpc.getData() as { requestId?: unknown } | null)?.requestId;
    const fields: LogFields = typeof requestId === 'string' ? { requestId } : {};
    // The handler runs when the result is subscribed to, so the context is bound there.
    return new Observable((subscriber) =>
      withLogContext(fields, () => {
        const started = performance.now();
        let status = 'ok';
        return next
          .handle()
          .pipe(
            tap({ error: (error: unknown) => (status = rpcErrorBodyOf(error).code) }),
            finalize(() => {
              const seconds = (performance.now() - started) / 1000;
              rpcServerSeconds.observe({ pattern, status }, seconds);
              const level = ROUTINE_PATTERNS.has(pattern) ? 'debug' : 'info';
              const durationMs = Math.round(seconds * 10_000) / 10;
              withLogContext(fields, () => processLogger()[level]({ pattern, status, durationMs }, `${pattern} ${status} ${durationMs} ms`));
            }),
          )
          .subscribe(subscriber);
      }),
    );
  }
}

/** The handler's own pattern (`@RpcHandler` sets it), the same whatever the transport calls the message. */
function patternName(handler: object): string {
  const patterns = Reflect.getMetadata(PATTERN_METADATA, handler) as Array<{ cmd?: unknown } | string> | undefined;
  const pattern = patterns?.[0];
  if (typeof pattern === 'string') return pattern;
  return typeof pattern?.cmd === 'string' ? pattern.cmd : 'unknown';
}
