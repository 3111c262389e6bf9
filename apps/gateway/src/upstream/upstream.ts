import { Logger } from '@nestjs/common';
import { ClientProxyFactory, Transport, type ClientProxy } from '@nestjs/microservices';
import { isRpcErrorBody, type AnyRpcDefinition, type ReplyOf, type RequestOf, type RpcService } from '@petstore/contracts';
import { timeRpcCall, traceRpcCall } from '@petstore/observability';
import { defaultIfEmpty, firstValueFrom, from, timeout, TimeoutError } from 'rxjs';
import type { GatewayConfig } from '../config';
import { ApiError, internalError } from '../http/api-error';

export const SERVICES: readonly RpcService[] = ['catalog', 'orders', 'inventory'];

/** Socket errors of connecting: nothing was sent, so the request was not carried out (503). */
const NOT_CONNECTED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/**
 * The one place the gateway sends RPC: request/response over the TCP transport of
 * @nestjs/microservices, bounded by a timeout. A service's refusal (the RPC error body) becomes
 * the same HTTP error. What the client may retry blindly is told apart from what it may not:
 * no connection, or no connection within the timeout, is 503 (nothing was sent); a connection
 * that breaks after sending, or no answer in time, is 504 (the outcome is unknown).
 *
 * Nest's TCP client connects on the first call and, when the connection closes (a service
 * restart), forgets it; the next call connects again, so the gateway recovers by itself.
 */
export class Upstream {
  private readonly logger = new Logger('Upstream');
  private readonly clients: Record<RpcService, ClientProxy>;

  constructor(private readonly config: GatewayConfig) {
    const client = (service: RpcService) => ClientProxyFactory.create({ transport: Transport.TCP, options: config[`${service}Rpc`] });
    this.clients = { catalog: client('catalog'), orders: client('orders'), inventory: client('inventory') };
  }

  /** `options.service` is for a pattern every service answers (the health check). */
  call<D extends AnyRpcDefinition>(rpc: D, request: RequestOf<D>, options: { service?: RpcService; timeoutMs?: number } = {}): Promise<ReplyOf<D>> {
    const service = (options.service ?? rpc.service) as RpcService;
    const client = this.clients[service];
    const timeoutMs = options.timeoutMs ?? this.config.upstreamTimeoutMs;
    const deadline = Date.now() + timeoutMs;
    // In an RPC client span whose traceparent travels in the payload (RpcRequest), so the service's work joins the request's trace.
    const reply = traceRpcCall({ service, method: rpc.pattern.cmd }, request, async (payload) => {
      await firstValueFrom(from(client.connect()).pipe(timeout(timeoutMs))).catch(() => Promise.reject(unavailable(service)));
      // A handler that returns nothing completes without a value.
      const answer = client.send<ReplyOf<D>>(rpc.pattern, payload).pipe(timeout(Math.max(0, deadline - Date.now())), defaultIfEmpty(undefined as ReplyOf<D>));
      return firstValueFrom(answer).catch((error: unknown) => Promise.reject(this.toApiError(service, rpc, error)));
    });
    return timeRpcCall(rpc.pattern.cmd, reply);
  }

  private toApiError(service: RpcService, rpc: AnyRpcDefinition, error: unknown): ApiError {
    if (isRpcErrorBody(error)) return new ApiError(error.code, error.message, error.details, undefined, error.status);
    if (error instanceof TimeoutError) return new ApiError('UPSTREAM_TIMEOUT', `The ${service} service did not answer in time`);
    const code = (error as { code?: unknown } | null)?.code;
    // Connecting anew inside `send` (the connection closed a moment ago) failed: nothing was sent.
    if (typeof code === 'string' && NOT_CONNECTED.has(code)) return unavailable(service);
    if (error instanceof Error && (error.message === 'Connection closed' || typeof code === 'string')) {
      return new ApiError('UPSTREAM_TIMEOUT', `The connection to the ${service} service broke after the request was sent; its outcome is unknown`);
    }
    this.logger.error(`Unexpected answer from ${service} to ${rpc.pattern.cmd}: ${error instanceof Error ? (error.stack ?? error.message) : JSON.stringify(error)}`);
    return internalError();
  }

  async close(): Promise<void> {
    await Promise.all(Object.values(this.clients).map((client) => client.close()));
  }
}

const unavailable = (service: RpcService): ApiError => new ApiError('SERVICE_UNAVAILABLE', `The ${service} service is unavailable`);
