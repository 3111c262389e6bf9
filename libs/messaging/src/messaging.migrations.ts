import { Migration } from '@mikro-orm/migrations';
import { OutboxEvent } from './outbox-event.entity';
import { ProcessedEvent } from './processed-event.entity';

export class Migration20261122000000_messaging extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table outbox_event (
        seq bigserial primary key,
        event_id uuid not null unique,
        topic text not null,
        key text not null,
        type text not null,
        envelope jsonb not null,
        created_at timestamptz not null default now(),
        published_at timestamptz null,
        attempts int not null default 0,
        last_error text null
      )`);
    // The relay's claim query reads only unpublished rows, in seq order.
    this.addSql('create index outbox_event_unpublished_idx on outbox_event (seq) where published_at is null');
    // The retention sweep deletes published rows by age.
    this.addSql(
      'create index outbox_event_published_at_idx on outbox_event (published_at) where published_at is not null',
    );
    this.addSql(`
      create table processed_event (
        consumer text not null,
        event_id uuid not null,
        processed_at timestamptz not null default now(),
        primary key (consumer, event_id)
      )`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists processed_event');
    this.addSql('drop table if exists outbox_event');
  }
}

/** Add to a service's `migrationsList` (the apps are bundled, so migrations are listed, not scanned). */
export const messagingMigrations = [
  { name: 'Migration20261122000000_messaging', class: Migration20261122000000_messaging },
];

/** Add to a service's `entities`. */
export const messagingEntities = [OutboxEvent, ProcessedEvent];
