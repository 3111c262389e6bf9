import { Migration } from '@mikro-orm/migrations';

export class Migration20261124000000_inventory_saga extends Migration {
  override async up(): Promise<void> {
    // When the pet's stock or open orders last changed: a status a client set before that is not mirrored.
    this.addSql('alter table inventory_entry add column stock_changed_at timestamptz null;');
    // Orders for a pet inventory has not heard of yet wait here (the OrderPlaced event as it came,
    // and its trace) until the pet's entry exists: no lock is held and no partition blocked while
    // the catalog is asked, however long it is down.
    this.addSql(`
      create table parked_order (
        seq bigserial primary key,
        order_id bigint not null unique,
        pet_id bigint not null,
        event jsonb not null,
        traceparent text null,
        tracestate text null,
        parked_at timestamptz not null default now()
      );
    `);
    this.addSql('create index parked_order_pet_id_idx on parked_order (pet_id);');
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists parked_order;');
    this.addSql('alter table inventory_entry drop column stock_changed_at;');
  }
}
