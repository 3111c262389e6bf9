import { ClientNats, ClientProxyFactory, Transport, type ClientProxy, type ReadPacket, type WritePacket } from '@nestjs/microservices';
// Not re-exported by the package's index: what Nest's NATS client reports for "no responders".
import { EmptyResponseException } from '@nestjs/microservices/errors/empty-response.exception';
import { createInbox, type Msg, type NatsConnection } from 'nats';
import { commandOf } from './pattern';
import { rpcSubject, type RpcTransportConfig } from './rpc-transport.config';

/**
 * Nest's NATS client, sending each pattern to `<prefix><service>.<cmd>`: the NATS server hands the
 * request to one replica of the service's queue group, whichever replicas are subscribed now.
 *
 * Requests are Nest's packets, so Nest's NATS server answers them as usual, but they travel on
 * the connection's one wildcard inbox, matched to their answers here by a token. Nest's own client
 * subscribes and unsubscribes an inbox per request, which cost the NATS server about 0.2 ms of CPU
 * per request; nats.js's `request` builds two Errors and a timer per call, 10 % of the gateway's
 * CPU on the read path (docs/BENCHMARKS.md). The caller bounds the wait; `maxWaitMs` only makes
 * sure nothing waits here forever. The requests of one event-loop turn leave in one write.
 */
export class NatsRpcClient extends ClientNats {
  private readonly waiting = new Map<string, Waiting>();
  private readonly subjects = new Map<string, string>();
  /** The wildcard inbox answers come to, and the connection it is subscribed on. */
  private inbox?: { subject: string; connection: NatsConnection };
  private nextToken = 0;
  private outgoing: Array<{ subject: string; data: Uint8Array; reply: string }> = [];

  constructor(
    private readonly subjectPrefix: string,
    private readonly service: string,
    servers: string[],
    name: string,
    private readonly maxWaitMs: number,
  ) {
    super({ servers, name, maxReconnectAttempts: -1 });
  }

  protected override normalizePattern(pattern: Parameters<ClientNats['send']>[0]): string {
    const serialized = super.normalizePattern(pattern);
    let subject = this.subjects.get(serialized);
    if (subject === undefined) {
      subject = rpcSubject(this.subjectPrefix, this.service, commandOf(serialized));
      this.subjects.set(serialized, subject);
    }
    return subject;
  }

  protected override publish(partialPacket: ReadPacket, callback: (packet: WritePacket) => void): () => void {
    const token = String(this.nextToken++);
    try {
      const subject = this.normalizePattern(partialPacket.pattern);
      const packet = this.serializer.serialize(this.assignPacketId(partialPacket)) as { data: Uint8Array };
      const timer = setTimeout(() => this.answer(token, { err: new Error(`No answer from ${subject} within ${this.maxWaitMs} ms`) }), this.maxWaitMs);
      this.waiting.set(token, { subject, callback, timer });
      if (this.outgoing.push({ subject, data: packet.data, reply: `${this.replyInbox()}.${token}` }) === 1) setImmediate(() => this.sendOutgoing());
    } catch (error) {
      callback({ err: error });
    }
    return () => this.forget(token);
  }

  override async close(): Promise<void> {
    for (const token of [...this.waiting.keys()]) this.answer(token, { err: new Error('Connection closed') });
    await super.close();
  }

  /** The connection's inbox, subscribed on its first use; nats.js subscribes it again after a reconnect. */
  private replyInbox(): string {
    const connection = this.natsClient as NatsConnection;
    if (this.inbox?.connection !== connection) {
      const subject = createInbox();
      connection.subscribe(`${subject}.*`, { callback: (_error, msg) => void this.receive(msg) });
      this.inbox = { subject, connection };
    }
    return this.inbox.subject;
  }

  private sendOutgoing(): void {
    const batch = this.outgoing;
    this.outgoing = [];
    const connection = this.natsClient as NatsConnection;
    for (const { subject, data, reply } of batch) {
      // A request whose caller gave up before it left is not sent.
      if (this.waiting.has(reply.slice(reply.lastIndexOf('.') + 1))) connection.publish(subject, data, { reply });
    }
  }

  private async receive(msg: Msg): Promise<void> {
    const token = msg.subject.slice(msg.subject.lastIndexOf('.') + 1);
    const waiting = this.waiting.get(token);
    if (!waiting) return;
    // The server's answer when no one subscribes to the subject: an empty message with status 503.
    if (msg.data.length === 0 && msg.headers?.code === 503) return this.answer(token, { err: new EmptyResponseException(waiting.subject) });
    const { err, response } = (await this.deserializer.deserialize(msg.data)) as WritePacket;
    this.answer(token, { err, response, isDisposed: true });
  }

  private answer(token: string, packet: WritePacket): void {
    const waiting = this.waiting.get(token);
    if (!waiting) return;
    this.forget(token);
    waiting.callback(packet);
  }

  private forget(token: string): void {
    const waiting = this.waiting.get(token);
    if (!waiting) return;
    clearTimeout(waiting.timer);
    this.waiting.delete(token);
  }
}

interface Waiting {
  subject: string;
  callback: (packet: WritePacket) => void;
  timer: NodeJS.Timeout;
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
