import type { EntityManager } from '@mikro-orm/postgresql';
import { executePrepared } from '@petstore/database';

/**
 * Forgets the `processed_event` rows (see admit in consumer-positions.ts) older than
 * `retentionMs`. Events that came without a publication number are deduplicated by id, and a
 * copy can only come back while the topic keeps the original: pass the topics' retention.
 */
export async function purgeProcessedEvents(em: EntityManager, retentionMs: number): Promise<void> {
  await executePrepared(em, 'delete from processed_event where processed_at < now() - make_interval(secs => ?)', [
    retentionMs / 1000,
  ]);
}
