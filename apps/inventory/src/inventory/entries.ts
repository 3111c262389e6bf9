import type { EntityManager } from '@mikro-orm/postgresql';
import type { PetStatus } from '@petstore/contracts';
import { executePrepared } from '@petstore/database';

/**
 * Entries come into being with the pet: quantity 0 and the pet's own status (creation is not
 * a stock change, so no recompute). An existing entry, or a tombstone, is left as it is.
 */
export async function createEntries(em: EntityManager, pets: { id: number; status: PetStatus }[]): Promise<void> {
  if (pets.length === 0) return;
  await executePrepared(
    em,
    `insert into inventory_entry (pet_id, quantity, status)
     select * from unnest(?::bigint[], ?::integer[], ?::text[])
     on conflict (pet_id) do nothing`,
    [pets.map((pet) => pet.id), pets.map(() => 0), pets.map((pet) => pet.status)],
  );
}

/**
 * A deleted pet's entry stays as a tombstone, so that late events about the pet (a
 * PetCreated, an order) cannot bring it back; orders for it are refused as UNKNOWN_PET.
 */
export async function tombstoneEntries(em: EntityManager, petIds: number[]): Promise<void> {
  if (petIds.length === 0) return;
  await executePrepared(
    em,
    `insert into inventory_entry (pet_id, quantity, status, deleted)
     select p, 0, 'sold', true from unnest(?::bigint[]) p
     on conflict (pet_id) do update set deleted = true, updated_at = now()`,
    [petIds],
  );
}
