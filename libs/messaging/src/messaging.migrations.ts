import { Migration } from '@mikro-orm/migrations';

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
    this.addSql('create index outbox_event_unpublished_idx on outbox_event (seq) where published_at is null');
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

/**
 * Bounded state. The outbox holds only what is not yet on Kafka (the relay deletes what it
 * published); each relayed event carries its outbox's id and a publication number, and a
 * consumer keeps, per partition and outbox, the highest number it has applied, in the same
 * transaction as the effects. `processed_event` is left for events that come without a
 * number (a replayed dead letter, a tool) and is emptied after the topics' retention.
 */
export class Migration20261124000000_bounded_messaging extends Migration {
  override async up(): Promise<void> {
    this.addSql('delete from outbox_event where published_at is not null');
    this.addSql('drop index if exists outbox_event_unpublished_idx');
    this.addSql('drop index if exists outbox_event_published_at_idx');
    this.addSql('alter table outbox_event drop column published_at');
    this.addSql('alter table outbox_event add column publish_seq bigint null');
    this.addSql('alter table outbox_event add column traceparent text null');
    this.addSql('alter table outbox_event add column tracestate text null');
    // The relay's one row: which outbox this is, and the last publication number it handed out.
    this.addSql(`
      create table outbox_relay (
        source uuid primary key default gen_random_uuid(),
        last_publish_seq bigint not null default 0
      )`);
    this.addSql('insert into outbox_relay default values');
    this.addSql(`
      create table consumer_position (
        consumer text not null,
        topic text not null,
        partition integer not null,
        source uuid not null,
        last_seq bigint not null,
        -- last_seq before the latest batch: what that batch was checked against
        previous_seq bigint not null default 0,
        updated_at timestamptz not null default now(),
        primary key (consumer, topic, partition, source)
      )`);
    // The retention sweep deletes by age.
    this.addSql('create index processed_event_processed_at_idx on processed_event (processed_at)');
  }

  override async down(): Promise<void> {
    this.addSql('drop index if exists processed_event_processed_at_idx');
    this.addSql('drop table if exists consumer_position');
    this.addSql('drop table if exists outbox_relay');
    this.addSql('alter table outbox_event drop column tracestate');
    this.addSql('alter table outbox_event drop column traceparent');
    this.addSql('alter table outbox_event drop column publish_seq');
    this.addSql('alter table outbox_event add column published_at timestamptz null');
    this.addSql('create index outbox_event_unpublished_idx on outbox_event (seq) where published_at is null');
  }
}

/**
 * The relay finds unnumbered rows through an index that holds only them: a scan of the table
 * itself walks every deleted row that has not been vacuumed yet.
 */
export class Migration20261124010000_outbox_unnumbered_index extends Migration {
  override async up(): Promise<void> {
    this.addSql('create index outbox_event_unnumbered_idx on outbox_event (seq) where publish_seq is null');
  }

  override async down(): Promise<void> {
    this.addSql('drop index if exists outbox_event_unnumbered_idx');
  }
}

/** Add to a service's `migrationsList` (the apps are bundled, so migrations are listed, not scanned). */
export const messagingMigrations = [
  { name: 'Migration20261122000000_messaging', class: Migration20261122000000_messaging },
  { name: 'Migration20261124000000_bounded_messaging', class: Migration20261124000000_bounded_messaging },
  { name: 'Migration20261124010000_outbox_unnumbered_index', class: Migration20261124010000_outbox_unnumbered_index },
];
