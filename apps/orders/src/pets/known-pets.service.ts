import { EntityManager } from '@mikro-orm/postgresql';
import { Injectable } from '@nestjs/common';
import { CatalogClient } from '@petstore/catalog-client';
import { executePrepared } from '@petstore/database';
import { DomainError } from '@petstore/service-kit';

export function unknownPet(petId: number): DomainError {
  return new DomainError(422, 'UNKNOWN_PET', `Pet ${petId} does not exist`);
}

/**
 * The replica of the catalog's pets that orders checks before taking an order. Rows are
 * never removed, only marked deleted, and a deleted mark is never undone: pet ids are not
 * reused, so a late PetCreated or catalog answer cannot bring a deleted pet back.
 */
@Injectable()
export class KnownPetsService {
  constructor(
    private readonly em: EntityManager,
    private readonly catalog: CatalogClient,
  ) {}

  /**
   * Refuses a pet that does not exist; one no event has announced yet is looked up in the
   * catalog and remembered. Runs outside any transaction: nothing is held while the catalog
   * is asked.
   */
  async assertKnown(petId: number, requestId: string): Promise<void> {
    if (!Number.isSafeInteger(petId) || petId < 1) throw unknownPet(petId);
    const [row] = await executePrepared<{ deleted: boolean }>(this.em, 'select deleted from known_pet where pet_id = ?', [
      petId,
    ]);
    if (row?.deleted) throw unknownPet(petId);
    if (row) return;
    if (!(await this.catalog.findPet(petId, requestId))) throw unknownPet(petId);
    await this.remember(this.em, [petId]);
  }

  /** PetCreated, PetUpdated, or the catalog's answer: the pets exist (unless already known as deleted). */
  async remember(em: EntityManager, petIds: number[]): Promise<void> {
    if (petIds.length === 0) return;
    await executePrepared(
      em,
      'insert into known_pet (pet_id, deleted) select p, false from unnest(?::bigint[]) p on conflict (pet_id) do nothing',
      [petIds],
    );
  }

  /** PetDeleted. Waits for orders being placed for these pets right now (they hold a share lock on the row). */
  async forget(em: EntityManager, petIds: number[]): Promise<void> {
    if (petIds.length === 0) return;
    await executePrepared(
      em,
      `insert into known_pet (pet_id, deleted) select p, true from unnest(?::bigint[]) p
       on conflict (pet_id) do update set deleted = true`,
      [petIds],
    );
  }
}
