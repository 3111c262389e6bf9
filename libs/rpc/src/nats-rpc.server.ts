import { Logger } from '@nestjs/common';
import { NatsContext, ServerNats } from '@nestjs/microservices';
import { NO_MESSAGE_HANDLER } from '@nestjs/microservices/constants';
import type { Msg, NatsConnection, Subscription } from 'nats';
import { isObservable } from 'rxjs';
import { commandOf } from './pattern';
import { natsConnectionOptions, rpcSubject, type NatsAccess } from './rpc-transport.config';

export interface NatsRpcServerOptions {
  servers: string[];
  subjectPrefix: string;
  /** The queue group: every replica of a service shares one, so each request goes to one of them. */
  service: string;
  /** The service's own NATS user, allowed to serve its subjects only. */
  credentials: NatsAccess;
}

type Response = { id?: string; response?: unknown; err?: unknown; isDisposed?: boolean; status?: string };

/**
 * Nest's NATS transport, serving `<prefix><service>.<cmd>` in the queue group `<service>`, with a
 * stop that loses no request: `stopTakingRequests` unsubscribes from the queue group (the NATS
 * server sends new requests to the other replicas from then on), lets the requests already
 * delivered here finish and answer, then drains the connection. Nest's own `gracefulShutdown`
 * only waits a fixed period and does not know when the last handler answered.
 */
export class NatsRpcServer extends ServerNats {
  private readonly stopLogger = new Logger('NatsRpcServer');
  private readonly subscribed: Subscription[] = [];
  /** Requests received and not yet answered. */
  private readonly inFlight = new Set<Msg>();
  /** Answers waiting for the end of this event-loop turn. */
  private answers: Array<() => void> = [];
  private idle?: () => void;
  private stopping?: Promise<void>;
  private connection?: NatsConnection;

  constructor(private readonly rpc: NatsRpcServerOptions) {
    super({ servers: rpc.servers, name: rpc.service, maxReconnectAttempts: -1, ...natsConnectionOptions(rpc.credentials) });
  }

  /**
   * Reports listening (Nest's `listen()` resolves, and the replica turns ready) only once the NATS
   * server has its subscriptions: until the server has read them, a request sent to this replica
   * alone is answered "no responders" (a 503). Nest reports it as soon as they are queued.
   */
  override start(callback: (err?: unknown, ...optionalParams: unknown[]) => void): void {
    super.start((error?: unknown) => {
      if (error || !this.connection) return callback(error);
      this.connection.flush().then(
        () => callback(),
        (flushError: unknown) => callback(flushError),
      );
    });
  }

  override bindEvents(client: NatsConnection): void {
    this.connection = client;
    for (const channel of this.messageHandlers.keys()) {
      const subject = rpcSubject(this.rpc.subjectPrefix, this.rpc.service, commandOf(channel));
      const callback = this.getMessageHandler(channel).bind(this) as (error: Error | null, msg: Msg) => void;
      this.subscribed.push(client.subscribe(subject, { queue: this.rpc.service, callback }));
    }
  }

  override async handleMessage(channel: string, msg: Msg): Promise<unknown> {
    if (!msg.reply) return super.handleMessage(channel, msg);
    this.inFlight.add(msg);
    try {
      return await this.answerRequest(channel, msg);
    } catch (error) {
      this.settle(msg);
      throw error;
    }
  }

  /**
   * Nest's request path, with an answer that is a plain value sent as one packet at once. Nest
   * turns every answer into an Observable and sends it through an rxjs pipeline and a tick, which
   * cost the catalog about as much CPU per read as the whole NATS client. Observables (a stream,
   * or a refusal, which Nest's exception filter hands back as one) still go Nest's way.
   */
  private async answerRequest(channel: string, msg: Msg): Promise<unknown> {
    const context = new NatsContext([msg.subject, msg.headers]);
    const message = (await this.deserializer.deserialize(msg.data, { channel, replyTo: msg.reply })) as { id?: string; data?: unknown };
    if (message.id === undefined) return this.handleEvent(channel, message as { pattern: string; data: unknown }, context);
    const publish = this.getPublisher(msg, message.id, context);
    const handler = this.getHandlerByPattern(channel);
    if (!handler) return publish({ id: message.id, status: 'error', err: NO_MESSAGE_HANDLER });
    return this.onProcessingStartHook(this.transportId, context, async () => {
      const result: unknown = await handler(message.data, context);
      if (isObservable(result)) this.send(result, publish);
      else publish({ response: result, isDisposed: true });
    });
  }

  override getPublisher(msg: Msg, id: string, context: NatsContext): (response: Response) => void {
    const publish = super.getPublisher(msg, id, context);
    return (response) => {
      const answer = () => {
        try {
          publish(response);
        } finally {
          // The last packet of an answer is marked disposed; a refusal carries `err`.
          if (response.isDisposed || response.err !== undefined) this.settle(msg);
        }
      };
      // The answers of one event-loop turn leave in one write, which the NATS server reads in one go.
      if (this.answers.push(answer) === 1) setImmediate(() => this.sendAnswers());
    };
  }

  private sendAnswers(): void {
    const answers = this.answers;
    this.answers = [];
    for (const answer of answers) answer();
  }

  /** Requests being handled now (for tests and the stop's log line). */
  get inFlightCount(): number {
    return this.inFlight.size;
  }

  /** Stops taking requests and answers those already taken, for at most `drainTimeoutMs`; idempotent. */
  stopTakingRequests(drainTimeoutMs: number): Promise<void> {
    this.stopping ??= this.stop(drainTimeoutMs);
    return this.stopping;
  }

  override async close(): Promise<void> {
    await this.stopTakingRequests(0);
    await super.close();
  }

  private async stop(drainTimeoutMs: number): Promise<void> {
    let connection: NatsConnection;
    try {
      connection = this.unwrap<NatsConnection>();
    } catch {
      return; // never listened
    }
    // Resolves once the server has the unsubscription and every message it routed here before it has been handed over.
    await Promise.all(this.subscribed.map((subscription) => subscription.drain().catch(() => undefined)));
    if (this.inFlight.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((resolve) => {
        this.idle = resolve;
        timer = setTimeout(resolve, drainTimeoutMs);
      });
      clearTimeout(timer);
      if (this.inFlight.size > 0) this.stopLogger.warn(`Stopped with ${this.inFlight.size} RPC request(s) unanswered after ${drainTimeoutMs} ms`);
    }
    // Hands over the answers of this turn, flushes what is buffered, then closes.
    this.sendAnswers();
    if (!connection.isClosed()) await connection.drain().catch(() => undefined);
  }

  private settle(msg: Msg): void {
    this.inFlight.delete(msg);
    if (this.inFlight.size === 0) this.idle?.();
  }
}
