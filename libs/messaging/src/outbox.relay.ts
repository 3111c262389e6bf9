import { EventEmitter } from 'node:events';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { MikroORM, type EntityManager } from '@mikro-orm/postgresql';
import { serializeEnvelope, type EventEnvelope } from '@petstore/contracts';
import { backoffDelay, createIdempotentProducer, sendAll, type TopicMessages } from '@petstore/kafka';
import type { Producer } from 'kafkajs';
import { MessagingKafka } from './messaging-kafka';
import { RELAY_SETTINGS, type RelaySettings } from './messaging.options';

interface ClaimedRow {
  seq: string;
  event_id: string;
  topic: string;
  key: string;
  type: string;
  envelope: EventEnvelope;
}

type BatchOutcome =
  | { kind: 'published'; count: number; firstSeq: number; lastSeq: number }
  | { kind: 'empty' }
  | { kind: 'busy' }
  | { kind: 'failed'; count: number; error: Error };

export interface RelayEvents {
  /** A batch reached Kafka. */
  published: [{ count: number; firstSeq: number; lastSeq: number }];
  /** A batch could not be published; its rows stay and are retried. */
  failed: [{ count: number; error: Error }];
}

/*
 * Replicas of a service share one outbox. Only the replica holding this lock relays, so
 * rows reach Kafka in seq order and one key's events keep their order; the others skip.
 */
const RELAY_LOCK = "hashtext('petstore.outbox-relay')";

/**
 * Publishes committed outbox rows: claims the oldest unpublished ones, sends them in one
 * request acknowledged by all in-sync replicas, marks them published, all in one database
 * transaction. A failed batch stays in the table with its error and is retried with
 * backoff; nothing is dropped. Woken right after a commit that wrote outbox rows, and by
 * a sweep every second as a safety net.
 */
@Injectable()
export class OutboxRelay {
  readonly events = new EventEmitter<RelayEvents>();
  private readonly logger = new Logger(OutboxRelay.name);
  private producer?: Producer;
  private started = false;
  private draining?: Promise<void>;
  private wokenWhileDraining = false;
  private failures = 0;
  private retryTimer?: NodeJS.Timeout;
  private sweepTimer?: NodeJS.Timeout;
  private purgeTimer?: NodeJS.Timeout;

  constructor(
    private readonly orm: MikroORM,
    private readonly kafka: MessagingKafka,
    @Inject(RELAY_SETTINGS) private readonly settings: RelaySettings,
  ) {}

  start(): void {
    if (this.started) return;
    this.started = true;
    this.sweepTimer = setInterval(() => this.wake(), this.settings.sweepIntervalMs);
    this.purgeTimer = setInterval(() => void this.purge(), this.settings.purgeIntervalMs);
    this.wake();
  }

  /** Publish what is waiting, soon. Cheap and safe to call often: calls coalesce. */
  wake(): void {
    if (!this.started || this.retryTimer) return; // after a failure the retry timer decides
    if (this.draining) {
      this.wokenWhileDraining = true;
      return;
    }
    // Commits that land while a batch is out are claimed together by the next one: under load
    // one claim and one Kafka request carry many events (a fixed delay before the first claim
    // was measured to add latency and no throughput).
    this.draining = this.drain().finally(() => (this.draining = undefined));
  }

  /** Stops relaying after publishing what is waiting (bounded by flushTimeoutMs), then disconnects. */
  async stop(): Promise<void> {
    if (!this.started) return;
    clearInterval(this.sweepTimer);
    clearInterval(this.purgeTimer);
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    this.wokenWhileDraining = true;
    if (!this.draining) this.draining = this.drain().finally(() => (this.draining = undefined));
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.draining,
      new Promise<void>((resolve) => (timer = setTimeout(resolve, this.settings.flushTimeoutMs))),
    ]);
    clearTimeout(timer);
    this.started = false;
    await this.discardProducer();
  }

  private async drain(): Promise<void> {
    do {
      this.wokenWhileDraining = false;
      const outcome = await this.relayBatch().catch(
        (error: unknown): BatchOutcome => ({ kind: 'failed', count: 0, error: asError(error) }),
      );
      switch (outcome.kind) {
        case 'published':
          this.failures = 0;
          if (outcome.count === this.settings.batchSize) this.wokenWhileDraining = true;
          break;
        case 'failed':
          this.scheduleRetry(outcome);
          return;
        case 'busy':
          // Another replica is relaying and may have missed this replica's latest commit.
          if (this.started && !this.retryTimer) {
            this.retryTimer = setTimeout(() => {
              this.retryTimer = undefined;
              this.wake();
            }, 50);
          }
          return;
        case 'empty':
          this.failures = 0;
          break;
      }
    } while (this.wokenWhileDraining && this.started);
  }

  private scheduleRetry({ count, error }: { count: number; error: Error }): void {
    this.failures += 1;
    const delay = backoffDelay(this.failures, this.settings.backoff);
    this.logger.warn(`Publishing ${count} outbox event(s) failed (${error.message}); retrying in ${delay} ms`);
    this.events.emit('failed', { count, error });
    if (!this.started) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.wake();
    }, delay);
  }

  private async relayBatch(): Promise<BatchOutcome> {
    const em = this.orm.em.fork();
    const outcome = await em.transactional(async (tx): Promise<BatchOutcome> => {
      // One round trip takes the lock and claims the rows: the lateral claim runs only once the lock is held.
      const claimed = await tx.execute<(ClaimedRow & { locked: boolean })[]>(
        `select l.locked, o.seq, o.event_id, o.topic, o.key, o.type, o.envelope
           from (select pg_try_advisory_xact_lock(${RELAY_LOCK}) as locked) l
           left join lateral (
             select seq, event_id, topic, key, type, envelope from outbox_event
              where l.locked and published_at is null order by seq limit ? for update skip locked
           ) o on true`,
        [this.settings.batchSize],
      );
      if (!claimed[0]?.locked) return { kind: 'busy' };
      const rows = claimed.filter((row) => row.seq !== null);
      if (rows.length === 0) return { kind: 'empty' };
      try {
        await this.publish(rows);
      } catch (error) {
        await this.discardProducer();
        const failure = asError(error);
        await markFailed(tx, rows, failure);
        return { kind: 'failed', count: rows.length, error: failure };
      }
      await markPublished(tx, rows);
      return {
        kind: 'published',
        count: rows.length,
        firstSeq: Number(rows[0].seq),
        lastSeq: Number(rows[rows.length - 1].seq),
      };
    });
    if (outcome.kind === 'published') {
      const { count, firstSeq, lastSeq } = outcome;
      this.events.emit('published', { count, firstSeq, lastSeq });
    }
    return outcome;
  }

  private async publish(rows: ClaimedRow[]): Promise<void> {
    const producer = await this.connectedProducer();
    const byTopic = new Map<string, TopicMessages>();
    for (const row of rows) {
      const topic = this.kafka.name(row.topic);
      let entry = byTopic.get(topic);
      if (!entry) byTopic.set(topic, (entry = { topic, messages: [] }));
      entry.messages.push({
        key: row.key,
        value: serializeEnvelope(row.envelope),
        headers: { 'event-type': row.type, 'event-id': row.event_id },
      });
    }
    await sendAll(producer, [...byTopic.values()]);
  }

  private async connectedProducer(): Promise<Producer> {
    if (this.producer) return this.producer;
    if (!this.started) throw new Error('The outbox relay is stopped');
    const producer = createIdempotentProducer(this.kafka.kafka);
    try {
      await producer.connect();
      if (!this.started) throw new Error('The outbox relay is stopped');
    } catch (error) {
      await producer.disconnect().catch(() => undefined);
      throw error;
    }
    this.producer = producer;
    return producer;
  }

  /** After a failure the idempotent producer's sequence state is suspect: the next batch starts a fresh session. */
  private async discardProducer(): Promise<void> {
    const producer = this.producer;
    this.producer = undefined;
    await producer?.disconnect().catch(() => undefined);
  }

  private async purge(): Promise<void> {
    try {
      await this.orm.em
        .fork()
        .execute(
          `delete from outbox_event where published_at is not null and published_at < now() - make_interval(secs => ?)`,
          [this.settings.retentionMs / 1000],
        );
    } catch (error) {
      this.logger.warn(`Purging published outbox rows failed: ${asError(error).message}`);
    }
  }
}

async function markPublished(tx: EntityManager, rows: ClaimedRow[]): Promise<void> {
  await tx.execute(
    `update outbox_event set published_at = now(), attempts = attempts + 1, last_error = null
      where seq in (${rows.map(() => '?').join(', ')})`,
    rows.map((row) => row.seq),
  );
}

async function markFailed(tx: EntityManager, rows: ClaimedRow[], error: Error): Promise<void> {
  await tx.execute(
    `update outbox_event set attempts = attempts + 1, last_error = ?
      where seq in (${rows.map(() => '?').join(', ')})`,
    [error.message.slice(0, 2000), ...rows.map((row) => row.seq)],
  );
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
