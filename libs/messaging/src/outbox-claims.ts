import type { EventEnvelope } from '@petstore/contracts';
import type { Client } from 'pg';

/** An outbox row the relay numbered and is about to publish. */
export interface ClaimedRow {
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

/*
 * The claim numbers fresh rows in `seq` order (found through the partial index on unnumbered
 * rows, so its cost does not grow with the deleted rows the table still holds), after any that
 * were numbered before and are still here ($3: only after a failed or interrupted publish), and
 * commits the numbers before the publish: every copy of an event that Kafka may ever get carries
 * the same number, and along each partition the numbers only grow. It also deletes the rows the
 * previous batch published ($2): a cycle is one statement and one send, with no round trip of
 * its own for the delete. At rest the sweep's claim deletes the last batch.
 *
 * The delete's bounds say nothing `= any` does not, but they make it go through the primary key
 * in every plan. The statement is prepared once per session, and planned again whenever the
 * table is emptied; on an empty table, PostgreSQL's generic plan for `seq = any($2)` alone was a
 * sequential scan, kept while the table filled with deleted rows (about a thousand pages before
 * the next emptying), and every claim walked them: 0.5–1 ms of the server's CPU per claim
 * (docs/BENCHMARKS-HISTORY.md, "The relay's delete through the primary key").
 */
const CLAIM = `
  with published as (
    delete from outbox_event
     where seq = any($2::bigint[])
       and seq between (select min(s) from unnest($2::bigint[]) s) and (select max(s) from unnest($2::bigint[]) s)
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
 * Rows not numbered yet, and numbered rows whose publish failed, but not the batch the leader
 * published and the next claim deletes (`$1`, known to the leader only).
 */
export const OUTBOX_BACKLOG = `
  select count(*) as rows, extract(epoch from now() - min(created_at))::float8 as oldest
    from outbox_event where (publish_seq is null or attempts > 0) and seq <> all(?::bigint[])`;

/**
 * Which outbox rows the leader takes next, and how the rows it published leave the table: on
 * the leader's own session (whose lock makes it the only one claiming), deleted with the next
 * claim or, now and then, all at once by emptying the table.
 */
export class OutboxClaims {
  /** Rows on Kafka and still in the outbox: the next claim deletes them. */
  private publishedRows: string[] = [];
  /** Numbered rows may be left from a failed publish or an earlier leader: the next claim takes them first. */
  private leftoversPossible = true;
  /** Rows published since the outbox was last emptied. */
  private publishedSinceEmptied = 0;

  constructor(
    private readonly settings: { batchSize: number; emptyOutboxAfterRows: number },
    private readonly warn: (message: string) => void,
  ) {}

  /** The published rows a replica that does not lead cannot tell from failed ones (see OUTBOX_BACKLOG). */
  get awaitingDelete(): string[] {
    return this.publishedRows;
  }

  /** A new leader, or a failed publish: rows numbered before may still be in the table. */
  expectLeftovers(): void {
    this.leftoversPossible = true;
  }

  /** Numbers and returns the next batch in publication order, deleting the batch published before. */
  async next(session: Client): Promise<ClaimedRow[]> {
    const { rows } = await session.query<ClaimedRow>({
      name: 'outbox_claim',
      text: CLAIM,
      values: [this.settings.batchSize, this.publishedRows, this.leftoversPossible],
    });
    this.publishedRows = [];
    this.leftoversPossible = false;
    return rows;
  }

  /** Keeps a batch that did not reach Kafka, with its error, for the next attempt. */
  async failed(session: Client, rows: ClaimedRow[], error: Error): Promise<void> {
    await session.query(
      'update outbox_event set attempts = attempts + 1, last_error = $2 where seq = any($1::bigint[])',
      [rows.map((row) => row.seq), error.message.slice(0, 2000)],
    );
  }

  /** Deletes published rows with the next claim, or all at once by emptying the table. */
  async published(session: Client, rows: ClaimedRow[]): Promise<void> {
    const seqs = rows.map((row) => row.seq);
    this.publishedSinceEmptied += seqs.length;
    if (this.publishedSinceEmptied >= this.settings.emptyOutboxAfterRows && (await this.emptied(session))) {
      this.publishedSinceEmptied = 0;
    } else {
      this.publishedRows = seqs;
    }
  }

  /** A leader that stops deletes what it published, so that the next one does not publish it again. */
  async release(session: Client | undefined): Promise<void> {
    const seqs = this.publishedRows;
    if (seqs.length === 0 || !session) return;
    this.publishedRows = [];
    await session.query('delete from outbox_event where seq = any($1::bigint[])', [seqs]).catch(() => undefined);
  }

  /** Truncates the outbox when it holds only the batch just published; false when it could not now. */
  private async emptied(session: Client): Promise<boolean> {
    if (this.leftoversPossible) return false;
    try {
      await session.query(EMPTY_OUTBOX);
      return true;
    } catch (error) {
      if (!NOT_NOW.has((error as { code?: string }).code ?? '')) {
        this.warn(`Emptying the outbox failed: ${(error as Error).message}`);
      }
      return false;
    }
  }
}
