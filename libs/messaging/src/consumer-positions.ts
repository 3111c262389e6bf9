import type { EntityManager } from '@mikro-orm/postgresql';
import { executePrepared } from '@petstore/database';

/** A consumed message as far as deduplication cares. */
export interface Admissible {
  eventId: string;
  /** The outbox that published it and its publication number; absent for an event published otherwise. */
  source?: string;
  seq?: number;
}

/**
 * Which messages of one partition's batch to apply, decided in the batch's transaction.
 *
 * A relayed event carries its outbox's id and a publication number that grows along each
 * partition, and every copy of it (a redelivery, a re-sent batch) carries the same number:
 * one at or below the highest applied is a copy. That highest number is kept per consumer,
 * partition and outbox in `consumer_position`, whose row the first statement both locks (a
 * second consumer of the partition, during a rebalance, waits and then sees the first one's
 * progress) and moves to the end of the batch. Events without a number are recorded by id
 * in `processed_event`.
 *
 * Answers, in batch order, whether each message is to be applied (false: a copy).
 */
export async function admit(
  em: EntityManager,
  at: { consumer: string; topic: string; partition: number },
  messages: Admissible[],
): Promise<boolean[]> {
  const batchEnd = new Map<string, number>();
  const unnumbered: string[] = [];
  for (const message of messages) {
    if (message.source !== undefined && message.seq !== undefined) {
      batchEnd.set(message.source, Math.max(batchEnd.get(message.source) ?? 0, message.seq));
    } else {
      unnumbered.push(message.eventId);
    }
  }

  const applied = new Map<string, number>();
  if (batchEnd.size > 0) {
    const sources = [...batchEnd.keys()];
    const rows = await executePrepared<{ source: string; previous_seq: string }>(
      em,
      `insert into consumer_position (consumer, topic, partition, source, last_seq)
       select ?, ?, ?, s.source, s.last_seq from unnest(?::uuid[], ?::bigint[]) as s(source, last_seq)
       on conflict (consumer, topic, partition, source) do update
         set previous_seq = consumer_position.last_seq,
             last_seq = greatest(consumer_position.last_seq, excluded.last_seq),
             updated_at = now()
       returning source, previous_seq`,
      [at.consumer, at.topic, at.partition, sources, sources.map((source) => batchEnd.get(source))],
    );
    // A new row answers previous_seq 0: nothing of that outbox was applied on this partition yet.
    for (const row of rows) applied.set(row.source.toLowerCase(), Number(row.previous_seq));
  }

  let firstTime = new Set<string>();
  if (unnumbered.length > 0) {
    const rows = await executePrepared<{ event_id: string }>(
      em,
      `insert into processed_event (consumer, event_id)
       select ?, e from unnest(?::uuid[]) e
       on conflict do nothing returning event_id`,
      [at.consumer, unnumbered],
    );
    firstTime = new Set(rows.map((row) => row.event_id.toLowerCase()));
  }

  return messages.map((message) => {
    if (message.source !== undefined && message.seq !== undefined) {
      const source = message.source.toLowerCase();
      const last = applied.get(source) ?? 0;
      if (message.seq <= last) return false;
      applied.set(source, message.seq);
      return true;
    }
    // delete: an event fetched twice in one batch is applied by its first copy only.
    return firstTime.delete(message.eventId.toLowerCase());
  });
}
