import { ClientNats, ClientProxyFactory, Transport, type ClientProxy, type ReadPacket, type WritePacket } from '@nestjs/microservices';
// Not re-exported by the package's index: what Nest's NATS client reports for "no responders".
import { EmptyResponseException } from '@nestjs/microservices/errors/empty-response.exception';
import { ErrorCode, type NatsConnection, type NatsError } from 'nats';
import { commandOf } from './pattern';
import { rpcSubject, type RpcTransportConfig } from './rpc-transport.config';

/**
 * Nest's NATS client, sending each pattern to `<prefix><service>.<cmd>`: the NATS server hands the
 * request to one replica of the service's queue group, whichever replicas are subscribed now.
 *
 * Requests go out as nats.js requests on the connection's one wildcard inbox. Nest's own client
 * subscribes and unsubscribes an inbox per request, and that churn of subscriptions cost the NATS
 * server about 0.2 ms of CPU per request here, more than the rest of its work (docs/BENCHMARKS.md).
 * The packets are Nest's, so Nest's NATS server answers them as usual.
 */
export class NatsRpcClient extends ClientNats {
  constructor(
    private readonly subjectPrefix: string,
    private readonly service: string,
    servers: string[],
    name: string,
    /** How long nats.js keeps waiting for an answer; the caller's own (shorter) timeout decides first. */
    private readonly maxWaitMs: number,
  ) {
    super({ servers, name, maxReconnectAttempts: -1 });
  }

  protected override normalizePattern(pattern: Parameters<ClientNats['send']>[0]): string {
    return rpcSubject(this.subjectPrefix, this.service, commandOf(super.normalizePattern(pattern)));
  }

  protected override publish(partialPacket: ReadPacket, callback: (packet: WritePacket) => void): () => void {
    let wanted = true;
    const subject = this.normalizePattern(partialPacket.pattern);
    try {
      const packet = this.serializer.serialize(this.assignPacketId(partialPacket)) as { data: Uint8Array; headers?: unknown };
      const connection = this.natsClient as NatsConnection;
      connection
        .request(subject, packet.data, { timeout: this.maxWaitMs, headers: this.mergeHeaders(packet.headers) })
        .then(async (msg) => {
          if (!wanted) return;
          const { err, response } = (await this.deserializer.deserialize(msg.data)) as WritePacket;
          callback({ err, response, isDisposed: true });
        })
        .catch((error: NatsError) => {
          if (!wanted) return;
          callback({ err: error.code === ErrorCode.NoResponders ? new EmptyResponseException(subject) : error });
        });
    } catch (error) {
      callback({ err: error });
    }
    return () => {
      wanted = false;
    };
  }
}

/** What callers use of Nest's clients, whichever the transport. */
export type RpcClient = Pick<ClientProxy, 'connect' | 'send' | 'close'>;

/** The longest a caller waits for an RPC answer (the gateway's UPSTREAM_TIMEOUT_MS at most). */
const MAX_WAIT_MS = 600_000;

/**
 * The client of one service over the configured transport; `tcp` is the address the TCP transport
 * uses. `maxWaitMs`: the longest the caller will wait for an answer (it applies its own timeout).
 */
export function createRpcClient(
  config: RpcTransportConfig,
  service: string,
  tcp: { host: string; port: number },
  clientName: string,
  maxWaitMs = MAX_WAIT_MS,
): RpcClient {
  if (config.rpcTransport === 'tcp') return ClientProxyFactory.create({ transport: Transport.TCP, options: tcp });
  // A second more than the caller's own timeout, so that the caller's decides.
  return new NatsRpcClient(config.natsSubjectPrefix, service, config.natsServers, clientName, maxWaitMs + 1000);
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
