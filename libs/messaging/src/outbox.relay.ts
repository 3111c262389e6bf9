import { EventEmitter } from 'node:events';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { MikroORM } from '@mikro-orm/postgresql';
import { executePrepared } from '@petstore/database';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import { crashPoint } from '@petstore/config';
import { serializeEnvelope, type EventEnvelope } from '@petstore/contracts';
import { backoffDelay, sleep } from '@petstore/backoff';
import { PUBLICATION_NUMBER_HEADERS, createIdempotentProducer, sendAll, type TopicMessages } from '@petstore/kafka';
import type { IHeaders, Producer } from 'kafkajs';
import { Client } from 'pg';
import { MessagingKafka } from './messaging-kafka';
import {
  answerOutboxBacklog,
  relayPublishedEvents,
  relayPublishFailures,
  relayPublishSeconds,
  type OutboxBacklog,
} from './messaging.metrics';
import { MESSAGING_OPTIONS, RELAY_SETTINGS, type MessagingOptions, type RelaySettings } from './messaging.options';
import { contextFromCarrier, messagingTracer, traceCarrierOf } from './trace-context';

/** Kafka headers that identify a relayed event for deduplication (see ConsumerPositions); a dead-letter replay drops them. */
export const OUTBOX_HEADERS = PUBLICATION_NUMBER_HEADERS;

interface ClaimedRow {
  seq: string;
  publish_seq: string;
  event_id: string;
  topic: string;
  key: string;
  type: string;
  envelope: EventEnvelope;
  traceparent: string | null;
  tracestate: string | null;
}

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

/*
 * The claim numbers fresh rows in `seq` order (found through the partial index on unnumbered
 * rows, so its cost does not grow with the deleted rows the table still holds), after any that
 * were numbered before and are still here ($3: only after a failed or interrupted publish), and
 * commits the numbers before the publish: every copy of an event that Kafka may ever get carries
 * the same number, and along each partition the numbers only grow. It also deletes the rows the
 * previous batch published ($2): a cycle is one statement and one send, with no round trip of
 * its own for the delete. At rest the sweep's claim deletes the last batch.
 */
const CLAIM = `
  with published as (
    delete from outbox_event where seq = any($2::bigint[])
  ), fresh as (
    select seq, row_number() over (order by seq) as n
      from (select seq from outbox_event where publish_seq is null order by seq limit $1) f
  ), counter as (
    update outbox_relay set last_publish_seq = last_publish_seq + (select count(*) from fresh)
     where exists (select 1 from fresh)
    returning last_publish_seq - (select count(*) from fresh) as base
  ), numbered as (
    update outbox_event o set publish_seq = counter.base + fresh.n
      from fresh, counter where o.seq = fresh.seq
    returning o.seq, o.publish_seq, o.event_id, o.topic, o.key, o.type, o.envelope, o.traceparent, o.tracestate
  )
  select seq, publish_seq, event_id, topic, key, type, envelope, traceparent, tracestate
    from outbox_event where $3::boolean and publish_seq is not null and seq <> all($2::bigint[])
  union all
  select * from numbered
  order by publish_seq`;

/*
 * Deleted rows keep their pages until a vacuum, and a server may run without autovacuum: once
 * enough rows went through, the relay empties the table at a moment when it holds only the
 * batch just published (TRUNCATE gives every page back at once). NOWAIT: writers never queue
 * behind it, and when rows are waiting nothing happens; it is tried again after the next batch.
 */
const EMPTY_OUTBOX = `
  do $$ begin
    lock table outbox_event in access exclusive mode nowait;
    if exists (select 1 from outbox_event where publish_seq is null) then
      raise exception 'events are waiting' using errcode = '55006';
    end if;
    truncate outbox_event;
  end $$`;
/** PostgreSQL's codes for a lock NOWAIT could not take, and for the table in use (rows waiting). */
const NOT_NOW = new Set(['55P03', '55006']);

/**
 * Publishes committed outbox rows. One replica of a service leads: it holds a session lock on
 * a connection of its own (the others wait on that lock, so one takes over the moment the
 * leader's session ends), listens there for wake-ups, and on that connection numbers the
 * oldest rows, sends them in one request acknowledged by all in-sync replicas, and deletes
 * them with its next claim. A failed batch stays in the table with its error and is retried with backoff;
 * nothing is dropped. Woken right after a commit that wrote outbox rows (on another replica,
 * through NOTIFY), and by a slow sweep as a safety net.
 */
@Injectable()
export class OutboxRelay {
  readonly events = new EventEmitter<RelayEvents>();
  private readonly logger = new Logger(OutboxRelay.name);
  private producer?: Producer;
  private started = false;
  private session?: Client;
  private source?: string;
  private leadership?: Promise<void>;
  private draining?: Promise<void>;
  private wokenWhileDraining = false;
  private failures = 0;
  private retryTimer?: NodeJS.Timeout;
  private sweepTimer?: NodeJS.Timeout;
  private purgeTimer?: NodeJS.Timeout;
  private notifying?: Promise<void>;
  private notifyAgain = false;
  /** Rows on Kafka and still in the outbox: the next claim deletes them. */
  private publishedRows: string[] = [];
  /** Numbered rows may be left from a failed publish or an earlier leader: the next claim takes them first. */
  private leftoversPossible = true;
  /** Rows published since the outbox was last emptied. */
  private publishedSinceEmptied = 0;

  constructor(
    private readonly orm: MikroORM,
    private readonly kafka: MessagingKafka,
    @Inject(RELAY_SETTINGS) private readonly settings: RelaySettings,
    @Inject(MESSAGING_OPTIONS) private readonly options: MessagingOptions,
  ) {}

  /** Whether this replica relays the outbox now. */
  get leading(): boolean {
    return this.source !== undefined;
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    answerOutboxBacklog(() => this.backlog());
    this.leadership = this.lead();
  }

  /** Publish what is waiting, soon. Cheap and safe to call often: calls coalesce. */
  wake(): void {
    if (!this.started) return;
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
      if (!this.draining) await this.removePublished();
    }
    this.started = false;
    await this.session?.end().catch(() => undefined);
    await this.leadership;
    await this.notifying;
    await this.discardProducer();
  }

  /** Waits for the leader lock, relays while it holds it, and waits again after its session broke. */
  private async lead(): Promise<void> {
    for (let attempt = 1; this.started; attempt++) {
      const session = new Client({
        connectionString: this.orm.config.getClientUrl(),
        application_name: `${this.options.producer} outbox relay`,
      });
      const ended = new Promise<void>((resolve) => {
        session.once('end', resolve);
        session.on('error', () => resolve());
      });
      session.on('notification', () => this.wake());
      this.session = session;
      try {
        await session.connect();
        await session.query(`select pg_advisory_lock(${LEADER_LOCK})`); // waits while another replica leads
        await session.query(`listen ${WAKE_CHANNEL}`);
        const { rows } = await session.query<{ source: string }>('select source from outbox_relay');
        if (!rows[0]) throw new Error('outbox_relay has no row: run the migrations');
        this.source = rows[0].source;
        this.leftoversPossible = true;
        attempt = 0;
        this.logger.log('Relaying the outbox');
        this.events.emit('leading');
        this.sweepTimer = setInterval(() => this.wake(), this.settings.sweepIntervalMs);
        this.purgeTimer = setInterval(() => void this.purgeProcessedEvents(), this.settings.purgeIntervalMs);
        this.wake();
        await ended;
      } catch (error) {
        if (this.started) this.logger.warn(`Outbox relay session: ${asError(error).message}`);
      } finally {
        this.source = undefined;
        clearInterval(this.sweepTimer);
        clearInterval(this.purgeTimer);
        await session.end().catch(() => undefined);
      }
      if (this.started) await sleep(backoffDelay(attempt, this.settings.backoff));
    }
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
        await this.orm.em
          .getConnection()
          .execute(`select pg_notify('${WAKE_CHANNEL}', '')`)
          .catch(() => undefined); // the leader's sweep publishes it all the same
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
    this.leftoversPossible = true;
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
    const session = this.session;
    const source = this.source;
    if (!session || !source) return { kind: 'empty' };
    const { rows } = await session.query<ClaimedRow>({
      name: 'outbox_claim',
      text: CLAIM,
      values: [this.settings.batchSize, this.publishedRows, this.leftoversPossible],
    });
    this.publishedRows = [];
    this.leftoversPossible = false;
    if (rows.length === 0) return { kind: 'empty' };
    const seqs = rows.map((row) => row.seq);
    const startedAt = performance.now();
    try {
      await this.publish(source, rows);
    } catch (error) {
      await this.discardProducer();
      const failure = asError(error);
      await session.query(
        'update outbox_event set attempts = attempts + 1, last_error = $2 where seq = any($1::bigint[])',
        [seqs, failure.message.slice(0, 2000)],
      );
      return { kind: 'failed', count: rows.length, error: failure };
    }
    relayPublishSeconds.observe((performance.now() - startedAt) / 1000);
    // Kafka has the events and the outbox still too: a crash here publishes them again, with the same numbers.
    crashPoint('relay.after-publish');
    await this.remove(session, seqs);
    relayPublishedEvents.inc(rows.length);
    this.events.emit('published', {
      count: rows.length,
      firstPublishSeq: Number(rows[0].publish_seq),
      lastPublishSeq: Number(rows[rows.length - 1].publish_seq),
    });
    return { kind: 'published', count: rows.length };
  }

  /** Deletes published rows with the next claim, or all at once by emptying the table. */
  private async remove(session: Client, seqs: string[]): Promise<void> {
    this.publishedSinceEmptied += seqs.length;
    if (this.publishedSinceEmptied >= this.settings.emptyOutboxAfterRows && (await this.emptied(session))) {
      this.publishedSinceEmptied = 0;
    } else {
      this.publishedRows = seqs;
    }
  }

  /** A leader that stops deletes what it published, so that the next one does not publish it again. */
  private async removePublished(): Promise<void> {
    const seqs = this.publishedRows;
    if (seqs.length === 0 || !this.session) return;
    this.publishedRows = [];
    await this.session.query('delete from outbox_event where seq = any($1::bigint[])', [seqs]).catch(() => undefined);
  }

  /** Truncates the outbox when it holds only the batch just published; false when it could not now. */
  private async emptied(session: Client): Promise<boolean> {
    if (this.leftoversPossible) return false;
    try {
      await session.query(EMPTY_OUTBOX);
      return true;
    } catch (error) {
      if (!NOT_NOW.has((error as { code?: string }).code ?? '')) {
        this.logger.warn(`Emptying the outbox failed: ${asError(error).message}`);
      }
      return false;
    }
  }

  private async publish(source: string, rows: ClaimedRow[]): Promise<void> {
    const producer = await this.connectedProducer();
    const byTopic = new Map<string, TopicMessages>();
    const spans: Span[] = [];
    for (const row of rows) {
      const topic = this.kafka.name(row.topic);
      let entry = byTopic.get(topic);
      if (!entry) byTopic.set(topic, (entry = { topic, messages: [] }));
      const span = this.producerSpan(topic, row);
      spans.push(span);
      const headers: IHeaders = {
        'event-type': row.type,
        'event-id': row.event_id,
        [OUTBOX_HEADERS.source]: source,
        [OUTBOX_HEADERS.seq]: row.publish_seq,
      };
      // The consumer's span is the child of this publish; without a tracer the writer's context travels on as it was.
      const carrier = span.isRecording()
        ? traceCarrierOf(trace.setSpan(ROOT_CONTEXT, span))
        : { traceparent: row.traceparent, tracestate: row.tracestate };
      if (carrier.traceparent) headers['traceparent'] = carrier.traceparent;
      if (carrier.tracestate) headers['tracestate'] = carrier.tracestate;
      entry.messages.push({ key: row.key, value: serializeEnvelope(row.envelope), headers });
    }
    try {
      await sendAll(producer, [...byTopic.values()]);
    } catch (error) {
      for (const span of spans) span.setStatus({ code: SpanStatusCode.ERROR, message: asError(error).message });
      throw error;
    } finally {
      for (const span of spans) span.end();
    }
  }

  /** The OpenTelemetry messaging conventions' "send" span, child of the context the row was written in. */
  private producerSpan(topic: string, row: ClaimedRow): Span {
    const parent = contextFromCarrier({
      traceparent: row.traceparent ?? undefined,
      tracestate: row.tracestate ?? undefined,
    });
    return messagingTracer.startSpan(
      `send ${topic}`,
      {
        kind: SpanKind.PRODUCER,
        attributes: {
          'messaging.system': 'kafka',
          'messaging.operation.type': 'send',
          'messaging.operation.name': 'send',
          'messaging.destination.name': topic,
          'messaging.message.id': row.event_id,
          'messaging.kafka.message.key': row.key,
          'petstore.event.type': row.type,
        },
      },
      parent,
    );
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

  /**
   * Rows not numbered yet, and numbered rows whose publish failed, but not the batch the leader
   * published and the next claim deletes (a replica that does not lead cannot tell those apart
   * after a failure, until that claim: five seconds at most at rest).
   */
  private async backlog(): Promise<OutboxBacklog> {
    const [row] = await executePrepared<{ rows: string; oldest: number | null }>(
      this.orm.em.fork(),
      `select count(*) as rows, extract(epoch from now() - min(created_at))::float8 as oldest
         from outbox_event where (publish_seq is null or attempts > 0) and seq <> all(?::bigint[])`,
      [this.publishedRows],
    );
    return { rows: Number(row.rows), oldestAgeSeconds: row.oldest ?? 0 };
  }

  /**
   * Events that came without a publication number are deduplicated by id; a copy can only
   * come back while the topic keeps the original, so their rows go after the topic retention.
   */
  private async purgeProcessedEvents(): Promise<void> {
    try {
      await this.session?.query('delete from processed_event where processed_at < now() - make_interval(secs => $1)', [
        this.settings.processedEventRetentionMs / 1000,
      ]);
    } catch (error) {
      this.logger.warn(`Purging processed_event failed: ${asError(error).message}`);
    }
  }
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
