import { Migration } from '@mikro-orm/migrations';

export class Migration20261122000000_inventory extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table inventory_entry (
        pet_id bigint primary key,
        quantity integer not null default 0
          constraint inventory_entry_quantity_check check (quantity >= 0),
        status text not null
          constraint inventory_entry_status_check check (status in ('available', 'pending', 'sold')),
        deleted boolean not null default false,
        last_recompute_event_id uuid null,
        updated_at timestamptz not null default now()
      );
    `);

    this.addSql(`
      create table reservation (
        order_id bigint primary key,
        pet_id bigint not null,
        quantity integer not null constraint reservation_quantity_check check (quantity >= 1),
        state text not null
          constraint reservation_state_check check (state in ('reserved', 'rejected', 'released', 'delivered', 'cancelled')),
        reason text null
          constraint reservation_reason_check check (reason in ('UNKNOWN_PET', 'PET_NOT_AVAILABLE', 'INSUFFICIENT_STOCK')),
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        constraint reservation_rejected_has_reason_check check ((state = 'rejected') = (reason is not null))
      );
    `);
    // A recompute asks whether any approved order of the pet is still open.
    this.addSql(`create index reservation_open_pet_id_idx on reservation (pet_id) where state = 'reserved';`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists reservation;');
    this.addSql('drop table if exists inventory_entry;');
  }
}
