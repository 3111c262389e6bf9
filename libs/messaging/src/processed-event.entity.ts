import { Entity, PrimaryKey, Property } from '@mikro-orm/core';

/**
 * An event a consumer has handled, recorded in the same transaction as the handler's
 * effect: a redelivered event finds its row and changes nothing.
 */
@Entity({ tableName: 'processed_event' })
export class ProcessedEvent {
  @PrimaryKey({ type: 'text' })
  consumer!: string;

  @PrimaryKey({ type: 'uuid', fieldName: 'event_id' })
  eventId!: string;

  @Property({ type: 'datetime', fieldName: 'processed_at' })
  processedAt: Date = new Date();
}
