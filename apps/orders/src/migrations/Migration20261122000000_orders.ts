import { Migration } from '@mikro-orm/migrations';

export class Migration20261122000000_orders extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table store_order (
        id bigserial primary key,
        pet_id bigint not null,
        quantity integer not null constraint store_order_quantity_check check (quantity between 1 and 1000),
        ship_date timestamptz null,
        status text not null default 'placed'
          constraint store_order_status_check check (status in ('placed', 'approved', 'rejected', 'delivered', 'cancelled')),
        rejection_reason text null
          constraint store_order_rejection_reason_check
          check (rejection_reason in ('UNKNOWN_PET', 'PET_NOT_AVAILABLE', 'INSUFFICIENT_STOCK')),
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        constraint store_order_rejected_has_reason_check check ((status = 'rejected') = (rejection_reason is not null))
      );
    `);
    // The pet filter of the listing (paged by id) and the cancellation of a deleted pet's open orders.
    this.addSql('create index store_order_pet_id_id_idx on store_order (pet_id, id);');
    this.addSql('create index store_order_status_id_idx on store_order (status, id);');

    this.addSql(`
      create table known_pet (
        pet_id bigint primary key,
        deleted boolean not null default false
      );
    `);

    this.addSql(`
      create table idempotency_key (
        scope text not null,
        key text not null,
        fingerprint text not null,
        order_id bigint null,
        response jsonb null,
        created_at timestamptz not null default now(),
        primary key (scope, key)
      );
    `);
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists idempotency_key;');
    this.addSql('drop table if exists known_pet;');
    this.addSql('drop table if exists store_order;');
  }
}
