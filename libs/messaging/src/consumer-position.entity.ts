import { BigIntType, Entity, PrimaryKey, Property } from '@mikro-orm/core';

/**
 * How far a consumer has applied one outbox's events on one partition, written in the same
 * transaction as their effects. Every relayed event carries its outbox (`source`) and a
 * publication number that grows along each partition; one at or below `lastSeq` is a copy
 * of an event already applied. One row per partition and producing outbox, however many
 * events flow.
 */
@Entity({ tableName: 'consumer_position' })
export class ConsumerPosition {
  @PrimaryKey({ type: 'text' })
  consumer!: string;

  @PrimaryKey({ type: 'text' })
  topic!: string;

  @PrimaryKey({ type: 'integer' })
  partition!: number;

  @PrimaryKey({ type: 'uuid' })
  source!: string;

  @Property({ type: new BigIntType('number'), fieldName: 'last_seq' })
  lastSeq!: number;

  /** `lastSeq` before the latest batch, which that batch's events were checked against. */
  @Property({ type: new BigIntType('number'), fieldName: 'previous_seq' })
  previousSeq = 0;

  @Property({ type: 'datetime', fieldName: 'updated_at' })
  updatedAt: Date = new Date();
}
