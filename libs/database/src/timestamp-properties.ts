import { Property } from '@mikro-orm/core';

/** `created_at timestamptz not null default now()`, as the services' migrations create it. */
export function CreatedAtProperty(): ReturnType<typeof Property> {
  return Property({ type: 'datetime', columnType: 'timestamptz', fieldName: 'created_at', defaultRaw: 'now()' });
}

/** `updated_at timestamptz not null default now()`, which MikroORM sets again on every update it flushes. */
export function UpdatedAtProperty(): ReturnType<typeof Property> {
  return Property({
    type: 'datetime',
    columnType: 'timestamptz',
    fieldName: 'updated_at',
    defaultRaw: 'now()',
    onUpdate: () => new Date(),
  });
}
