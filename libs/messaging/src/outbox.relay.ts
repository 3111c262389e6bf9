import { EventEmitter } from 'node:events';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { context, ROOT_CONTEXT } from '@opentelemetry/api';
import { MikroORM, type EntityManager } from '@mikro-orm/postgresql';
import { backoffDelay } from '@petstore/backoff';
import { crashPoint } from '@petstore/config';
import { ListeningSession, executePrepared, poolEntityManager } from '@petstore/database';
import type { Client } from 'pg';
import { MessagingKafka } from './messaging-kafka';
import {
  outboxBacklog,
  relayPublishedEvents,
  relayPublishFailures,
  relayPublishSeconds,
  type OutboxBacklog,
} from './messaging.metrics';
import { MESSAGING_OPTIONS, RELAY_SETTINGS, type MessagingOptions, type RelaySettings } from './messaging.options';
import { OUTBOX_BACKLOG, OutboxClaims } from './outbox-claims';
import { OutboxPublisher } from './outbox.publisher';
import { purgeProcessedEvents } from './processed-events.purge';

export { OUTBOX_HEADERS } from './outbox.publisher';

type BatchOutcome =
  | { kind: 'published'; count: number }
  | { kind: 'empty' }
  | { kind: 'failed'; count: number; error: Error };

export interface RelayEvents {
  /** This replica holds the outbox and relays it. */
  leading: [];
  /** A batch reached Kafka. */
  published: [{ count: number; firstPublishSeq: number; lastPublishSeq: number }];
  /** A batch could not be published; its rows stay and are retried. */
  failed: [{ count: number; error: Error }];
}

/** Replicas of a service share one outbox; the one holding this session lock relays it. */
const LEADER_LOCK = "hashtext('petstore.outbox-relay')";
/** Writers on other replicas wake the leader through this channel. */
const WAKE_CHANNEL = 'petstore_outbox';

/**
 * Publishes committed outbox rows: decides when. One replica of a service leads: its listening
 * session (libs/database) holds the leader lock (the others wait on it, so one takes over the
 * moment the leader's session ends) and hears wake-ups. On that session the leader claims the
 * oldest rows (OutboxClaims), sends them (OutboxPublisher) and deletes them with its next
 * claim. A failed batch stays in the table with its error and is retried with backoff; nothing
 * is dropped. Woken right after a commit that wrote outbox rows (on another replica, through
 * NOTIFY), and by a slow sweep as a safety net.
 */
@Injectable()
export class OutboxRelay {
  readonly events = new EventEmitter<RelayEvents>();
  private readonly logger = new Logger(OutboxRelay.name);
  private readonly session: ListeningSession;
  private readonly claims: OutboxClaims;
  private readonly publisher: OutboxPublisher;
  private started = false;
  private source?: string;
  private draining?: Promise<void>;
  private wokenWhileDraining = false;
  private failures = 0;
  private retryTimer?: NodeJS.Timeout;
  private sweepTimer?: NodeJS.Timeout;
  private purgeTimer?: NodeJS.Timeout;
  private notifying?: Promise<void>;
  private notifyAgain = false;
  private readonly pool: EntityManager;

  constructor(
    orm: MikroORM,
    kafka: MessagingKafka,
    @Inject(RELAY_SETTINGS) private readonly settings: RelaySettings,
    @Inject(MESSAGING_OPTIONS) options: MessagingOptions,
  ) {
    this.pool = poolEntityManager(orm);
    this.claims = new OutboxClaims(settings, (message) => this.logger.warn(message));
    this.publisher = new OutboxPublisher(kafka);
    this.session = new ListeningSession({
      url: orm.config.getClientUrl(),
      applicationName: `${options.producer} outbox relay`,
      channel: WAKE_CHANNEL,
      lock: LEADER_LOCK,
      backoff: settings.backoff,
      onNotification: () => this.wake(),
      onListening: (client) => this.lead(client),
      onEnded: () => this.follow(),
      onError: (error) => this.logger.warn(`Outbox relay session: ${error.message}`),
    });
  }

  /** Whether this replica relays the outbox now. */
  get leading(): boolean {
    return this.source !== undefined;
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    outboxBacklog.answerWith(() => this.backlog());
    this.publisher.start();
    this.session.start();
  }

  /**
   * Publish what is waiting, soon. Cheap and safe to call often: calls coalesce.
   * A writer wakes the relay from its request's context; the relay's own work runs outside it.
   * Else its claim statements (each for the rows of many requests) were pg spans in the trace of
   * whichever request woke it, and the drains that followed stayed in that trace too. The relay
   * shows in each event's trace as the send span, made from the row's own traceparent.
   */
  wake(): void {
    if (!this.started) return;
    context.with(ROOT_CONTEXT, () => this.wakeOutsideCallersTrace());
  }

  private wakeOutsideCallersTrace(): void {
    if (!this.leading) {
      this.notifyLeader();
      return;
    }
    if (this.retryTimer) return; // after a failure the retry timer decides
    if (this.draining) {
      this.wokenWhileDraining = true;
      return;
    }
    // Commits that land while a batch is out are claimed together by the next one: under load
    // one claim and one Kafka request carry many events.
    this.draining = this.drain().finally(() => (this.draining = undefined));
  }

  /** Stops relaying after publishing what is waiting (bounded by flushTimeoutMs), then lets another replica lead. */
  async stop(): Promise<void> {
    if (!this.started) return;
    clearInterval(this.sweepTimer);
    clearInterval(this.purgeTimer);
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    if (this.leading) {
      this.wokenWhileDraining = true;
      this.draining ??= this.drain().finally(() => (this.draining = undefined));
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        this.draining,
        new Promise<void>((resolve) => (timer = setTimeout(resolve, this.settings.flushTimeoutMs))),
      ]);
      clearTimeout(timer);
      if (!this.draining) await this.claims.release(this.session.client);
    }
    this.started = false;
    await this.session.stop();
    await this.notifying;
    await this.publisher.stop();
  }

  /** The session holds the leader lock: relay until it ends. */
  private async lead(client: Client): Promise<void> {
    const { rows } = await client.query<{ source: string }>('select source from outbox_relay');
    if (!rows[0]) throw new Error('outbox_relay has no row: run the migrations');
    this.source = rows[0].source;
    this.claims.expectLeftovers();
    this.logger.log('Relaying the outbox');
    this.events.emit('leading');
    this.sweepTimer = setInterval(() => this.wake(), this.settings.sweepIntervalMs);
    this.purgeTimer = setInterval(() => void this.purge(), this.settings.purgeIntervalMs);
    this.wake();
  }

  /** The session ended: another replica may lead now. */
  private follow(): void {
    this.source = undefined;
    clearInterval(this.sweepTimer);
    clearInterval(this.purgeTimer);
  }

  /** A commit on a replica that does not relay: the leader hears of it at once. */
  private notifyLeader(): void {
    if (this.notifying) {
      this.notifyAgain = true;
      return;
    }
    this.notifying = (async () => {
      do {
        this.notifyAgain = false;
        await executePrepared(this.pool, `select pg_notify('${WAKE_CHANNEL}', '')`).catch(
          () => undefined, // the leader's sweep publishes it all the same
        );
      } while (this.notifyAgain && this.started);
    })().finally(() => (this.notifying = undefined));
  }

  private async drain(): Promise<void> {
    do {
      this.wokenWhileDraining = false;
      const outcome = await this.relayBatch().catch(
        (error: unknown): BatchOutcome => ({ kind: 'failed', count: 0, error: asError(error) }),
      );
      if (outcome.kind === 'failed') {
        // A session that ended under the batch is not a publishing failure: the next leader takes the rows.
        if (this.started && this.leading) this.scheduleRetry(outcome);
        return;
      }
      this.failures = 0;
      if (outcome.kind === 'published' && outcome.count >= this.settings.batchSize) this.wokenWhileDraining = true;
    } while (this.wokenWhileDraining && this.leading);
  }

  private scheduleRetry({ count, error }: { count: number; error: Error }): void {
    this.failures += 1;
    this.claims.expectLeftovers();
    const delay = backoffDelay(this.failures, this.settings.backoff);
    this.logger.warn(`Publishing ${count} outbox event(s) failed (${error.message}); retrying in ${delay} ms`);
    relayPublishFailures.inc();
    this.events.emit('failed', { count, error });
    if (!this.started) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.wake();
    }, delay);
  }

  private async relayBatch(): Promise<BatchOutcome> {
    const session = this.session.client;
    const source = this.source;
    if (!session || !source) return { kind: 'empty' };
    const rows = await this.claims.next(session);
    if (rows.length === 0) return { kind: 'empty' };
    const startedAt = performance.now();
    try {
      await this.publisher.publish(source, rows);
    } catch (error) {
      const failure = asError(error);
      await this.claims.failed(session, rows, failure);
      return { kind: 'failed', count: rows.length, error: failure };
    }
    relayPublishSeconds.observe((performance.now() - startedAt) / 1000);
    // Kafka has the events and the outbox still too: a crash here publishes them again, with the same numbers.
    crashPoint('relay.after-publish');
    await this.claims.published(session, rows);
    relayPublishedEvents.inc(rows.length);
    this.events.emit('published', {
      count: rows.length,
      firstPublishSeq: Number(rows[0].publish_seq),
      lastPublishSeq: Number(rows[rows.length - 1].publish_seq),
    });
    return { kind: 'published', count: rows.length };
  }

  /** A replica that does not lead cannot tell the leader's published rows from failed ones until its next claim: five seconds at most at rest. */
  private async backlog(): Promise<OutboxBacklog> {
    const [row] = await executePrepared<{ rows: string; oldest: number | null }>(this.pool, OUTBOX_BACKLOG, [
      this.claims.awaitingDelete,
    ]);
    return { rows: Number(row.rows), oldestAgeSeconds: row.oldest ?? 0 };
  }

  /** The leader purges for all replicas: one delete at a time. */
  private async purge(): Promise<void> {
    try {
      await purgeProcessedEvents(this.pool, this.settings.processedEventRetentionMs);
    } catch (error) {
      this.logger.warn(`Purging processed_event failed: ${asError(error).message}`);
    }
  }
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
