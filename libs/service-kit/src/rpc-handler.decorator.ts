import { MessagePattern } from '@nestjs/microservices';
import type { AnyRpcDefinition, ReplyOf, RequestOf } from '@petstore/contracts';
import { traceRpcHandling } from '@petstore/observability';
import { DomainError } from './domain-error';
import { observeRpcHandling } from './rpc-observer';

/** What a handler of `D` must look like: it takes D's request and answers D's reply. */
export type RpcHandlerOf<D extends AnyRpcDefinition> = (request: RequestOf<D>) => ReplyOf<D> | Promise<ReplyOf<D>>;

/**
 * `@RpcHandler(CatalogRpc.getPet)` on a controller method: routes the pattern to it, and
 * TypeScript refuses a method whose request or reply differs from the definition. Where the
 * definition has a request schema, a request that breaks it is refused with 400
 * `VALIDATION_FAILED` before the method runs. A request that carries the caller's trace context
 * (`traceparent`) is handled in an RPC server span of that trace, so the events it writes join it.
 * Every handling is observed (rpc-observer.ts: log context, latency metric, a log line), so the
 * decorated method answers a Promise whatever the method itself returns.
 */
export function RpcHandler<D extends AnyRpcDefinition>(rpc: D) {
  return <T extends RpcHandlerOf<D>>(target: object, key: string | symbol, descriptor: TypedPropertyDescriptor<T>): void => {
    const handler = descriptor.value;
    if (handler) {
      // A pattern every service answers (the health check) has no service of its own.
      const callee = { service: rpc.service ?? 'any', method: rpc.pattern.cmd };
      descriptor.value = function (this: unknown, request: RequestOf<D>) {
        return observeRpcHandling(rpc.pattern.cmd, request, () =>
          traceRpcHandling(callee, request, () => {
            const details = rpc.check(request);
            if (details.length > 0) throw new DomainError(400, 'VALIDATION_FAILED', `The ${rpc.pattern.cmd} request is not valid`, details);
            return handler.call(this, request);
          }),
        );
      } as T;
    }
    MessagePattern(rpc.pattern)(target, key, descriptor);
  };
}
