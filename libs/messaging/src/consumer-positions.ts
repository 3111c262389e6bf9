import type { EntityManager } from '@mikro-orm/postgresql';
import { executePrepared } from '@petstore/database';

/** A consumed message as far as deduplication cares. */
export interface Admissible {
  topic: string;
  partition: number;
  eventId: string;
  /** The outbox that published it and its publication number; absent for an event published otherwise. */
  source?: string;
  seq?: number;
}

/**
 * What to do with a message: apply it, drop it as a copy of one applied before, or refuse it
 * because its publication number is further ahead than its outbox can have got (see `admit`).
 */
export type Admission = 'apply' | 'copy' | 'implausible';

/*
 * One statement per batch, whatever the partitions it spans. `bound` is, per outbox of the
 * batch, the highest number it accepts: the highest this consumer has applied from that outbox
 * on any topic and partition (or, for an outbox it has never seen, just below the batch's
 * lowest) plus the lead allowed. `moved` advances each partition's position to its highest
 * number in the batch within that bound only.
 */
const ADMIT_NUMBERED = `
  with batch as (
    select topic, partition, source, seq
      from unnest(?::text[], ?::int[], ?::uuid[], ?::bigint[]) as m(topic, partition, source, seq)
  ), bound as (
    select b.source,
           coalesce((select max(p.last_seq) from consumer_position p where p.consumer = ? and p.source = b.source),
                    min(b.seq) - 1) + ? as highest
      from batch b group by b.source
  ), moved as (
    insert into consumer_position (consumer, topic, partition, source, last_seq)
    select ?, b.topic, b.partition, b.source, max(b.seq) from batch b join bound using (source)
     where b.seq <= bound.highest group by b.topic, b.partition, b.source
    on conflict (consumer, topic, partition, source) do update
      set previous_seq = consumer_position.last_seq,
          last_seq = greatest(consumer_position.last_seq, excluded.last_seq),
          updated_at = now()
    returning topic, partition, source, previous_seq
  )
  select bound.source, bound.highest, moved.topic, moved.partition, moved.previous_seq
    from bound left join moved using (source)`;

/**
 * Which messages of a batch to apply, decided in the batch's transaction. The batch may span
 * partitions (the batches of one fetch are applied together); each keeps its own position.
 *
 * A relayed event carries its outbox's id and a publication number that grows along each
 * partition, and every copy of it (a redelivery, a re-sent batch) carries the same number:
 * one at or below the highest applied is a copy. That highest number is kept per consumer,
 * partition and outbox in `consumer_position`, whose row the first statement both locks (a
 * second consumer of the partition, during a rebalance, waits and then sees the first one's
 * progress) and moves to the end of the batch. Events without a number are recorded by id
 * in `processed_event`.
 *
 * A number is only believed within `maxLead` of the highest this consumer has applied from
 * that outbox anywhere: an outbox numbers all it publishes from one counter, so while the
 * consumer keeps up, its next numbers lie just above that. One further ahead is refused and
 * moves nothing, or a single forged number (a copy written back with `outbox-seq` in the
 * trillions) would make every later event of the partition look like a copy.
 *
 * Answers, in batch order, what to do with each message.
 */
export async function admit(
  em: EntityManager,
  at: { consumer: string; maxLead: number },
  messages: Admissible[],
): Promise<Admission[]> {
  const numbered = messages.filter((message) => message.source !== undefined && message.seq !== undefined);
  const unnumbered = messages.filter((message) => message.source === undefined || message.seq === undefined);

  /** Per outbox, the highest number believed. */
  const highest = new Map<string, number>();
  /** Per partition and outbox, the highest number applied so far; absent when all of its numbers were refused. */
  const applied = new Map<string, number>();
  if (numbered.length > 0) {
    const rows = await executePrepared<{
      source: string;
      highest: string;
      topic: string | null;
      partition: number | null;
      previous_seq: string | null;
    }>(em, ADMIT_NUMBERED, [
      numbered.map((message) => message.topic),
      numbered.map((message) => message.partition),
      numbered.map((message) => message.source),
      numbered.map((message) => message.seq),
      at.consumer,
      at.maxLead,
      at.consumer,
    ]);
    // A new row answers previous_seq 0: nothing of that outbox was applied on that partition yet;
    // an outbox has no row for a partition (topic null when for none) where all its numbers were refused.
    for (const row of rows) {
      const source = row.source.toLowerCase();
      highest.set(source, Number(row.highest));
      if (row.topic !== null && row.partition !== null && row.previous_seq !== null) {
        applied.set(positionKey(row.topic, row.partition, source), Number(row.previous_seq));
      }
    }
  }

  let firstTime = new Set<string>();
  if (unnumbered.length > 0) {
    const rows = await executePrepared<{ event_id: string }>(
      em,
      `insert into processed_event (consumer, event_id)
       select ?, e from unnest(?::uuid[]) e
       on conflict do nothing returning event_id`,
      [at.consumer, unnumbered.map((message) => message.eventId)],
    );
    firstTime = new Set(rows.map((row) => row.event_id.toLowerCase()));
  }

  return messages.map((message): Admission => {
    if (message.source !== undefined && message.seq !== undefined) {
      const source = message.source.toLowerCase();
      const key = positionKey(message.topic, message.partition, source);
      const before = applied.get(key);
      if (before === undefined || message.seq > (highest.get(source) ?? -Infinity)) return 'implausible';
      if (message.seq <= before) return 'copy';
      applied.set(key, message.seq);
      return 'apply';
    }
    // delete: an event fetched twice in one batch is applied by its first copy only.
    return firstTime.delete(message.eventId.toLowerCase()) ? 'apply' : 'copy';
  });
}

function positionKey(topic: string, partition: number, source: string): string {
  return `${topic}\u0000${partition}\u0000${source}`;
}
