import { Logger } from '@nestjs/common';
import { isRpcErrorBody, type AnyRpcDefinition, type ReplyOf, type RequestOf, type RpcService } from '@petstore/contracts';
import { timeRpcCall, traceRpcCall } from '@petstore/observability';
import { createRpcClient, RpcTimeoutError, transportFailureOf, type RpcClient } from '@petstore/rpc';
import type { GatewayConfig } from '../config';
import { ApiError, internalError } from '../http/api-error';

export const SERVICES: readonly RpcService[] = ['catalog', 'orders', 'inventory'];

/**
 * The one place the gateway sends RPC: request/response over the configured transport of
 * @nestjs/microservices (@petstore/rpc), bounded by a timeout. A service's refusal (the RPC error
 * body) becomes the same HTTP error. What the client may retry blindly is told apart from what it
 * may not: no replica to take it ("no responders"), no connection to NATS or to the TCP address,
 * or none within the timeout, is 503 (nothing was sent); no answer in time, or a TCP connection
 * that breaks after sending, is 504 (the outcome is unknown).
 *
 * Over NATS each request goes to one replica of the service's queue group, whichever are
 * subscribed at that moment; a replica that stops leaves the group first, so it gets no new
 * request. Nest's clients connect on the first call and reconnect by themselves.
 */
export class Upstream {
  private readonly logger = new Logger('Upstream');
  private readonly clients: Record<RpcService, RpcClient>;

  constructor(private readonly config: GatewayConfig) {
    const client = (service: RpcService) => createRpcClient(config, service, config[`${service}Rpc`], 'gateway');
    this.clients = { catalog: client('catalog'), orders: client('orders'), inventory: client('inventory') };
  }

  /** `options.service` is for a pattern every service answers (the health check). */
  call<D extends AnyRpcDefinition>(rpc: D, request: RequestOf<D>, options: { service?: RpcService; timeoutMs?: number } = {}): Promise<ReplyOf<D>> {
    const service = (options.service ?? rpc.service) as RpcService;
    const client = this.clients[service];
    const timeoutMs = options.timeoutMs ?? this.config.upstreamTimeoutMs;
    // The request's traceparent travels in the payload (RpcRequest), so the service's work joins the request's trace.
    const reply = traceRpcCall({ service, method: rpc.pattern.cmd }, request, (payload) =>
      client.request<ReplyOf<D>>(rpc.pattern, payload, timeoutMs).catch((error: unknown) => Promise.reject(this.toApiError(service, rpc, error))),
    );
    return timeRpcCall(rpc.pattern.cmd, reply);
  }

  private toApiError(service: RpcService, rpc: AnyRpcDefinition, error: unknown): ApiError {
    if (isRpcErrorBody(error)) return new ApiError(error.code, error.message, error.details, undefined, error.status);
    if (error instanceof RpcTimeoutError) return new ApiError('UPSTREAM_TIMEOUT', `The ${service} service did not answer in time`);
    const failure = transportFailureOf(error);
    if (failure === 'not-sent') return unavailable(service);
    if (failure === 'outcome-unknown') {
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
