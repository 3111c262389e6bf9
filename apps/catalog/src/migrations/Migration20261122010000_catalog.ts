import { Migration } from '@mikro-orm/migrations';

export class Migration20261122010000_catalog extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table category (
        id bigserial primary key,
        name text not null constraint category_name_length_check check (char_length(name) >= 1 and char_length(name) <= 50),
        description text null constraint category_description_length_check check (char_length(description) <= 500)
      );
    `);
    // Uniqueness is case-insensitive; concurrent creates of "Dogs" and "dogs" are settled by this index.
    this.addSql('create unique index category_name_lower_key on category (lower(name));');

    this.addSql(`
      create table pet (
        id bigserial primary key,
        name text not null constraint pet_name_length_check check (char_length(name) >= 1 and char_length(name) <= 100),
        category_id bigint not null
          constraint pet_category_id_fkey references category (id) on update restrict on delete restrict,
        status text not null default 'available'
          constraint pet_status_check check (status in ('available', 'pending', 'sold')),
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      );
    `);
    // Serves both the category filter of the listing (paged by id) and the foreign key check on category delete.
    this.addSql('create index pet_category_id_id_idx on pet (category_id, id);');
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists pet;');
    this.addSql('drop table if exists category;');
  }
}
