import { Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import type { TcpContext } from '@nestjs/microservices';
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
    const pattern = patternName(rpc.getContext<TcpContext>().getPattern());
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

/** The TCP transport hands the pattern over serialized: `{"cmd":"orders.place"}` is `orders.place`. */
function patternName(serialized: string): string {
  try {
    const cmd = (JSON.parse(serialized) as { cmd?: unknown }).cmd;
    return typeof cmd === 'string' ? cmd : serialized;
  } catch {
    return serialized;
  }
}
