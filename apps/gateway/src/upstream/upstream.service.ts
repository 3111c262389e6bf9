import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { ClientProxyFactory, Transport, type ClientProxy } from '@nestjs/microservices';
import { isRpcErrorBody } from '@petstore/contracts';
import { firstValueFrom, throwError, timeout } from 'rxjs';
import { GATEWAY_CONFIG, type GatewayConfig, type RpcAddress } from '../config';
import { ApiError, internalError } from '../http/api-error';

export const SERVICES = ['catalog', 'orders', 'inventory'] as const;
export type ServiceName = (typeof SERVICES)[number];

/** Socket errors that mean "nobody is there (any more)": answered 503 at once instead of waiting. */
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ETIMEDOUT',
  'ECONNABORTED',
]);

/**
 * The one way the gateway calls a service: request/response over the TCP transport, bounded
 * by a timeout. A service's own refusal (the RPC error body) becomes the same HTTP error;
 * a service that is not there becomes 503, one that does not answer in time 504.
 *
 * Nest's TCP client connects on the first call and, when the connection closes (a service
 * restart), forgets it; the next call connects again, so the gateway recovers by itself.
 */
@Injectable()
export class Upstream implements OnApplicationShutdown {
  private readonly logger = new Logger('Upstream');
  private readonly clients: Record<ServiceName, ClientProxy>;
  private readonly timeoutMs: number;

  constructor(@Inject(GATEWAY_CONFIG) config: GatewayConfig) {
    const client = (address: RpcAddress) =>
      ClientProxyFactory.create({ transport: Transport.TCP, options: { host: address.host, port: address.port } });
    this.clients = {
      catalog: client(config.catalogRpc),
      orders: client(config.ordersRpc),
      inventory: client(config.inventoryRpc),
    };
    this.timeoutMs = config.upstreamTimeoutMs;
  }

  async send<T>(service: ServiceName, pattern: object, payload: object, timeoutMs = this.timeoutMs): Promise<T> {
    const reply$ = this.clients[service].send<T>(pattern, payload).pipe(
      timeout({
        first: timeoutMs,
        with: () => throwError(() => new ApiError('UPSTREAM_TIMEOUT', `The ${service} service did not answer in time`)),
      }),
    );
    try {
      // A handler that returns nothing (a delete) completes without a value.
      return (await firstValueFrom(reply$, { defaultValue: undefined })) as T;
    } catch (error) {
      throw this.toApiError(service, pattern, error);
    }
  }

  private toApiError(service: ServiceName, pattern: object, error: unknown): ApiError {
    if (error instanceof ApiError) return error;
    if (isRpcErrorBody(error)) {
      return new ApiError(error.code, error.message, error.details, undefined, error.status);
    }
    const code = (error as { code?: unknown } | null)?.code;
    if ((typeof code === 'string' && UNREACHABLE.has(code)) || (error instanceof Error && error.message === 'Connection closed')) {
      return new ApiError('SERVICE_UNAVAILABLE', `The ${service} service is unavailable`);
    }
    this.logger.error(
      `Unexpected answer from ${service} to ${JSON.stringify(pattern)}: ${error instanceof Error ? (error.stack ?? error.message) : JSON.stringify(error)}`,
    );
    return internalError();
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all(Object.values(this.clients).map((client) => client.close()));
  }
}
