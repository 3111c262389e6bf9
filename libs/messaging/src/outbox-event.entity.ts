import { BigIntType, Entity, PrimaryKey, Property } from '@mikro-orm/core';
import type { EventEnvelope } from '@petstore/contracts';

/**
 * An event written in the same transaction as the change it reports and not yet on Kafka:
 * the relay deletes the row once the broker has it. `seq` orders publication; `publishSeq`
 * is the number the relay gave it before its first attempt, which every copy it publishes
 * carries, so that consumers can tell a re-sent copy from a new event.
 */
@Entity({ tableName: 'outbox_event' })
export class OutboxEvent {
  @PrimaryKey({ type: new BigIntType('number'), autoincrement: true })
  seq!: number;

  @Property({ type: 'uuid', fieldName: 'event_id', unique: true })
  eventId!: string;

  /** Un-namespaced: the relay prefixes the namespace of the running process. */
  @Property({ type: 'text' })
  topic!: string;

  @Property({ type: 'text' })
  key!: string;

  @Property({ type: 'text' })
  type!: string;

  @Property({ type: 'json' })
  envelope!: EventEnvelope;

  @Property({ type: 'datetime', fieldName: 'created_at' })
  createdAt: Date = new Date();

  @Property({ type: new BigIntType('number'), fieldName: 'publish_seq', nullable: true })
  publishSeq: number | null = null;

  /** W3C trace context of the code that wrote the event: the publish and everything after it join that trace. */
  @Property({ type: 'text', nullable: true })
  traceparent: string | null = null;

  @Property({ type: 'text', nullable: true })
  tracestate: string | null = null;

  @Property({ type: 'integer' })
  attempts = 0;

  @Property({ type: 'text', fieldName: 'last_error', nullable: true })
  lastError: string | null = null;
}
