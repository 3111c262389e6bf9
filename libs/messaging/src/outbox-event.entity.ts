import { BigIntType, Entity, PrimaryKey, Property } from '@mikro-orm/core';
import type { EventEnvelope } from '@petstore/contracts';

/**
 * An event waiting to be published, written in the same transaction as the change it
 * reports. `seq` orders publication; the relay marks a row published once Kafka has it.
 */
@Entity({ tableName: 'outbox_event' })
export class OutboxEvent {
  @PrimaryKey({ type: new BigIntType('number'), autoincrement: true })
  seq!: number;

  @Property({ type: 'uuid', fieldName: 'event_id', unique: true })
  eventId: string;

  /** Un-namespaced: the relay prefixes the namespace of the running process. */
  @Property({ type: 'text' })
  topic: string;

  @Property({ type: 'text' })
  key: string;

  @Property({ type: 'text' })
  type: string;

  @Property({ type: 'json' })
  envelope: EventEnvelope;

  @Property({ type: 'datetime', fieldName: 'created_at' })
  createdAt: Date = new Date();

  @Property({ type: 'datetime', fieldName: 'published_at', nullable: true })
  publishedAt: Date | null = null;

  @Property({ type: 'integer' })
  attempts = 0;

  @Property({ type: 'text', fieldName: 'last_error', nullable: true })
  lastError: string | null = null;

  constructor(topic: string, envelope: EventEnvelope) {
    this.eventId = envelope.eventId;
    this.topic = topic;
    this.key = envelope.key;
    this.type = envelope.type;
    this.envelope = envelope;
  }
}
