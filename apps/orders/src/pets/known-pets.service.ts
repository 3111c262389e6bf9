import type { EntityManager } from '@mikro-orm/postgresql';
import { Injectable } from '@nestjs/common';
import { CatalogClient } from '@petstore/catalog-client';
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
  constructor(private readonly catalog: CatalogClient) {}

  /**
   * Refuses an order for a pet that does not exist, asking the catalog about one no event
   * has announced yet. The share lock on the replica row makes a concurrent PetDeleted wait
   * for this order, so the deletion then cancels it too.
   */
  async assertOrderable(em: EntityManager, petId: number, requestId: string): Promise<void> {
    if (!Number.isSafeInteger(petId) || petId < 1) throw unknownPet(petId);
    let state = await this.lockState(em, petId);
    if (state === undefined) {
      if (!(await this.catalog.findPet(petId, requestId))) throw unknownPet(petId);
      await this.remember(em, petId);
      state = await this.lockState(em, petId);
    }
    if (state !== 'exists') throw unknownPet(petId);
  }

  /** PetCreated, PetUpdated, or the catalog's answer: the pet exists (unless already known as deleted). */
  async remember(em: EntityManager, petId: number): Promise<void> {
    await em.execute('insert into known_pet (pet_id, deleted) values (?, false) on conflict (pet_id) do nothing', [petId]);
  }

  async forget(em: EntityManager, petId: number): Promise<void> {
    await em.execute(
      'insert into known_pet (pet_id, deleted) values (?, true) on conflict (pet_id) do update set deleted = true',
      [petId],
    );
  }

  private async lockState(em: EntityManager, petId: number): Promise<'exists' | 'deleted' | undefined> {
    const rows = await em.execute<{ deleted: boolean }[]>('select deleted from known_pet where pet_id = ? for share', [
      petId,
    ]);
    if (rows.length === 0) return undefined;
    return rows[0].deleted ? 'deleted' : 'exists';
  }
}
