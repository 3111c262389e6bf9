import { ClientNats, ClientProxyFactory, Transport, type ClientProxy } from '@nestjs/microservices';
// Not re-exported by the package's index: what Nest's NATS client reports for "no responders".
import { EmptyResponseException } from '@nestjs/microservices/errors/empty-response.exception';
import { commandOf } from './pattern';
import { rpcSubject, type RpcTransportConfig } from './rpc-transport.config';

/**
 * Nest's NATS client, sending each pattern to `<prefix><service>.<cmd>`: the NATS server hands the
 * request to one replica of the service's queue group, whichever replicas are subscribed now.
 */
export class NatsRpcClient extends ClientNats {
  constructor(
    private readonly subjectPrefix: string,
    private readonly service: string,
    servers: string[],
    name: string,
  ) {
    super({ servers, name, maxReconnectAttempts: -1 });
  }

  protected override normalizePattern(pattern: Parameters<ClientNats['send']>[0]): string {
    return rpcSubject(this.subjectPrefix, this.service, commandOf(super.normalizePattern(pattern)));
  }
}

/** What callers use of Nest's clients, whichever the transport. */
export type RpcClient = Pick<ClientProxy, 'connect' | 'send' | 'close'>;

/** The client of one service over the configured transport; `tcp` is the address the TCP transport uses. */
export function createRpcClient(
  config: RpcTransportConfig,
  service: string,
  tcp: { host: string; port: number },
  clientName: string,
): RpcClient {
  if (config.rpcTransport === 'tcp') return ClientProxyFactory.create({ transport: Transport.TCP, options: tcp });
  return new NatsRpcClient(config.natsSubjectPrefix, service, config.natsServers, clientName);
}

/** Socket errors of connecting over TCP: nothing was sent. */
const TCP_NOT_CONNECTED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/**
 * What a failed call says about the request, by what the transport knows (API.md §4):
 * - `not-sent`: no replica took it. NATS answers "no responders" at once when nothing is
 *   subscribed to the subject; over TCP the connection could not be made.
 * - `outcome-unknown`: it may have been carried out (a TCP connection broke after sending).
 * - undefined: not a transport failure (a refusal, a timeout: the caller tells those apart).
 */
export function transportFailureOf(error: unknown): 'not-sent' | 'outcome-unknown' | undefined {
  if (error instanceof EmptyResponseException) return 'not-sent';
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && TCP_NOT_CONNECTED.has(code)) return 'not-sent';
  if (error instanceof Error && (error.message === 'Connection closed' || typeof code === 'string')) return 'outcome-unknown';
  return undefined;
}
