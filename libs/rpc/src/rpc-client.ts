import { ClientNats, ClientProxyFactory, Transport, type ClientProxy, type WritePacket } from '@nestjs/microservices';
// Not re-exported by the package's index: what Nest's NATS client reports for "no responders".
import { EmptyResponseException } from '@nestjs/microservices/errors/empty-response.exception';
import { type Msg, type NatsConnection } from 'nats';
import { randomBytes } from 'node:crypto';
import { defaultIfEmpty, firstValueFrom, throwError, timeout } from 'rxjs';
import { natsAccessOf, natsConnectionOptions, rpcSubject, type NatsAccess, type RpcTransportConfig } from './rpc-transport.config';

export type RpcPattern = { cmd: string };

/** What callers use of an RPC client, whichever the transport: one request, one answer, within a deadline. */
export interface RpcClient {
  connect(): Promise<unknown>;
  /**
   * Sends `data` to `pattern` and resolves with the answer (undefined when the handler answered
   * nothing). Rejects with the service's RPC error body, with RpcTimeoutError when no answer came
   * within `timeoutMs` (its outcome is unknown), or with what transportFailureOf() judges.
   */
  request<T>(pattern: RpcPattern, data: unknown, timeoutMs: number): Promise<T>;
  close(): Promise<void>;
}

/** No answer within the caller's deadline: the request may or may not have been carried out. */
export class RpcTimeoutError extends Error {
  override readonly name = 'RpcTimeoutError';
}

/** No connection to the transport within the caller's deadline: nothing was sent. */
export class RpcNotConnectedError extends Error {
  override readonly name = 'RpcNotConnectedError';
}

/**
 * `connect()` within `timeoutMs`, or RpcNotConnectedError whatever the reason it did not; resolves
 * with what is left of `timeoutMs` for the answer.
 */
async function connectWithin(connect: () => Promise<unknown>, timeoutMs: number, what: string): Promise<number> {
  const started = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const gaveUp = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new RpcNotConnectedError(`No connection to ${what} within ${timeoutMs} ms`)), timeoutMs)));
  try {
    await Promise.race([connect(), gaveUp]);
  } catch (error) {
    throw error instanceof RpcNotConnectedError ? error : Object.assign(new RpcNotConnectedError(`No connection to ${what}: ${(error as Error)?.message ?? error}`), { cause: error });
  } finally {
    clearTimeout(timer);
  }
  return Math.max(0, timeoutMs - (Date.now() - started));
}

/**
 * Nest's NATS client, sending each pattern to `<prefix><service>.<cmd>`: the NATS server hands the
 * request to one replica of the service's queue group, whichever replicas are subscribed now.
 *
 * Requests are Nest's packets, so Nest's NATS server answers them as usual, but they travel on
 * the connection's one wildcard inbox, matched to their answers here by a token, and wait with
 * one timer for the caller's deadline. Nest's own client subscribes and unsubscribes an inbox per
 * request, which cost the NATS server about 0.2 ms of CPU per request; nats.js's `request` builds
 * two Errors and a timer per call, 10 % of the gateway's CPU on the read path; Nest's Observable
 * with rxjs's timeout added two more timers (docs/BENCHMARKS-HISTORY.md, "The NATS hop, second
 * round" and "third round"). The requests of one event-loop turn leave in one write.
 */
export class NatsRpcClient extends ClientNats implements RpcClient {
  private readonly waiting = new Map<string, Waiting>();
  /** The wildcard inbox answers come to, and the connection it is subscribed on. */
  private inbox?: { subject: string; connection: NatsConnection };
  private nextToken = 0;
  private outgoing: Array<{ subject: string; data: Uint8Array; reply: string }> = [];

  constructor(
    private readonly subjectPrefix: string,
    private readonly service: string,
    servers: string[],
    name: string,
    private readonly credentials: NatsAccess,
  ) {
    super({ servers, name, maxReconnectAttempts: -1, ...natsConnectionOptions(credentials) });
  }

  async request<T>(pattern: RpcPattern, data: unknown, timeoutMs: number): Promise<T> {
    const waitMs = this.natsClient ? timeoutMs : await connectWithin(() => this.connect(), timeoutMs, `NATS for ${this.service}`);
    return new Promise<T>((resolve, reject) => {
      const token = String(this.nextToken++);
      const subject = rpcSubject(this.subjectPrefix, this.service, pattern.cmd);
      const packet = this.serializer.serialize(this.assignPacketId({ pattern, data })) as { data: Uint8Array };
      const timer = setTimeout(() => this.answer(token, { err: new RpcTimeoutError(`No answer from ${subject} within ${timeoutMs} ms`) }), waitMs);
      this.waiting.set(token, { subject, timer, callback: ({ err, response }) => (err ? reject(err) : resolve(response as T)) });
      if (this.outgoing.push({ subject, data: packet.data, reply: `${this.replyInbox()}.${token}` }) === 1) setImmediate(() => this.sendOutgoing());
    });
  }

  override async close(): Promise<void> {
    for (const token of [...this.waiting.keys()]) this.answer(token, { err: new Error('Connection closed') });
    await super.close();
  }

  /** The connection's inbox, subscribed on its first use; nats.js subscribes it again after a reconnect. */
  private replyInbox(): string {
    const connection = this.natsClient as NatsConnection;
    if (this.inbox?.connection !== connection) {
      // Under the user's own inbox prefix (the only answers its NATS permissions let it read), and
      // random (nats.js's inbox names follow each other): a service that answers this client
      // cannot guess the inbox of the same process's client of another service.
      const subject = `${natsConnectionOptions(this.credentials).inboxPrefix}.${randomBytes(16).toString('hex')}`;
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
    // A handler's answer is one packet (Nest merges the value and the end of its stream); a later one finds nobody waiting.
    const { err, response } = (await this.deserializer.deserialize(msg.data)) as WritePacket;
    this.answer(token, { err, response });
  }

  private answer(token: string, packet: Pick<WritePacket, 'err' | 'response'>): void {
    const waiting = this.waiting.get(token);
    if (!waiting) return;
    clearTimeout(waiting.timer);
    this.waiting.delete(token);
    waiting.callback(packet);
  }
}

interface Waiting {
  subject: string;
  callback: (packet: Pick<WritePacket, 'err' | 'response'>) => void;
  timer: NodeJS.Timeout;
}

/** Nest's TCP client, to one address, behind the same request(). */
class TcpRpcClient implements RpcClient {
  private readonly client: ClientProxy;

  constructor(private readonly address: { host: string; port: number }) {
    this.client = ClientProxyFactory.create({ transport: Transport.TCP, options: address });
  }

  connect(): Promise<unknown> {
    return this.client.connect();
  }

  async request<T>(pattern: RpcPattern, data: unknown, timeoutMs: number): Promise<T> {
    const waitMs = await connectWithin(() => this.client.connect(), timeoutMs, `${this.address.host}:${this.address.port}`);
    const timedOut = () => throwError(() => new RpcTimeoutError(`No answer from ${this.address.host}:${this.address.port} within ${timeoutMs} ms`));
    const answer = this.client.send<T>(pattern, data).pipe(timeout({ first: waitMs, with: timedOut }), defaultIfEmpty(undefined as T));
    return firstValueFrom(answer);
  }

  close(): Promise<void> {
    return this.client.close();
  }
}

/** The client of one service over the configured transport; `tcp` is the address the TCP transport uses. */
export function createRpcClient(config: RpcTransportConfig, service: string, tcp: { host: string; port: number }, clientName: string): RpcClient {
  if (config.rpcTransport === 'tcp') return new TcpRpcClient(tcp);
  return new NatsRpcClient(config.natsSubjectPrefix, service, config.natsServers, clientName, natsAccessOf(config));
}

/** Socket errors of connecting over TCP: nothing was sent. */
const TCP_NOT_CONNECTED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/**
 * What a failed call says about the request, by what the transport knows (API.md §4):
 * - `not-sent`: no replica took it. NATS answers "no responders" at once when nothing is
 *   subscribed to the subject; no connection to NATS or to the TCP address could be made.
 * - `outcome-unknown`: it may have been carried out (a TCP connection broke after sending).
 * - undefined: not a transport failure (a refusal, a timeout: the caller tells those apart).
 */
export function transportFailureOf(error: unknown): 'not-sent' | 'outcome-unknown' | undefined {
  if (error instanceof EmptyResponseException || error instanceof RpcNotConnectedError) return 'not-sent';
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && TCP_NOT_CONNECTED.has(code)) return 'not-sent';
  if (error instanceof Error && (error.message === 'Connection closed' || typeof code === 'string')) return 'outcome-unknown';
  return undefined;
}
