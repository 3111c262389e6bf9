import { LockMode } from '@mikro-orm/core';
import { EntityManager } from '@mikro-orm/postgresql';
import { executePrepared, RowsById, SharedReads } from '@petstore/database';
import { Injectable } from '@nestjs/common';
import type {
  ById,
  EventMeta,
  CreatePetCommand,
  ListPetsQuery,
  NewPet,
  Page,
  PatchPetCommand,
  Pet as PetView,
  PetStatus,
  PetWithCategory,
  ReplacePetCommand,
} from '@petstore/contracts';
import { isIssuableId, pageCursor, pageLimit, pageOf, parsePathId } from '@petstore/service-kit';
import { unknownCategory } from '../categories/categories.errors';
import { Category } from '../categories/category.entity';
import { categoryRowView } from '../categories/category.view';
import { violatedConstraint } from '../common/constraint-violation';
import { containsPattern } from '../common/like-pattern';
import { Pet } from './pet.entity';
import { PetEvents, requestMeta } from './pet.events';
import { PET_ROW_COLUMNS, petRowView, samePet, toPetView, type PetRow } from './pet.view';
import { petNotFound } from './pets.errors';

const PET_CATEGORY_FOREIGN_KEY = 'pet_category_id_fkey';
const DEFAULT_STATUS: PetStatus = 'available';

/** A pet row with its category's columns. */
interface PetDetailsRow extends PetRow {
  category_name: string;
  category_description: string | null;
}

/** Its entity work expects a request context (the controller creates one for each message that does any); list, get and details are plain SQL and need none. */
@Injectable()
export class PetsService {
  /** Pure reads are plain SQL, and those of one event-loop turn go together. */
  private readonly reads: SharedReads;
  private readonly byId: RowsById<PetRow>;
  private readonly detailsById: RowsById<PetDetailsRow>;

  constructor(
    private readonly em: EntityManager,
    private readonly events: PetEvents,
  ) {
    this.reads = new SharedReads(em);
    this.byId = new RowsById<PetRow>(em, `select ${PET_ROW_COLUMNS} from pet where id = any(?::bigint[])`, 'id');
    this.detailsById = new RowsById<PetDetailsRow>(
      em,
      `select p.id, p.name, p.category_id, p.status, c.name as category_name, c.description as category_description
         from pet p join category c on c.id = p.category_id where p.id = any(?::bigint[])`,
      'id',
    );
  }

  async list(query: ListPetsQuery): Promise<Page<PetView>> {
    const limit = pageLimit(query.limit);
    // Every filter narrows rows read in id order, so paging walks the primary key (or the category index).
    const conditions = ['id > ?'];
    const params: unknown[] = [pageCursor(query.after)];
    if (query.status?.length) {
      conditions.push('status = any(?::text[])');
      params.push(query.status);
    }
    if (query.categoryId !== undefined) {
      conditions.push('category_id = ?');
      params.push(isIssuableId(query.categoryId) ? query.categoryId : 0);
    }
    if (query.name) {
      conditions.push('name ilike ?');
      params.push(containsPattern(query.name));
    }
    const rows = await this.selectRows(conditions.join(' and '), params, limit + 1);
    return pageOf(rows.map(petRowView), limit);
  }

  async get({ id }: ById): Promise<PetView> {
    const petId = parsePathId(id);
    const row = petId === undefined ? undefined : await this.byId.load(petId);
    if (!row) throw petNotFound(id);
    return petRowView(row);
  }

  async details({ id }: ById): Promise<PetWithCategory> {
    const petId = parsePathId(id);
    const row = petId === undefined ? undefined : await this.detailsById.load(petId);
    if (!row) throw petNotFound(id);
    return { ...petRowView(row), category: categoryRowView({ id: row.category_id, name: row.category_name, description: row.category_description }) };
  }

  /**
   * Pure reads are plain SQL: building a query, hydrating and tracking entities cost more than
   * the query itself on the busiest paths.
   */
  private selectRows(where: string, params: unknown[], limit: number): Promise<readonly PetRow[]> {
    return this.reads.read<PetRow>(`select ${PET_ROW_COLUMNS} from pet where ${where} order by id limit ?`, [...params, limit]);
  }

  async create({ pet, requestId }: CreatePetCommand): Promise<PetView> {
    return this.mappingCategoryViolation(pet.categoryId, () =>
      this.em.transactional(async (em) => {
        const entity = em.create(Pet, {
          name: pet.name,
          category: categoryReference(em, pet.categoryId),
          status: pet.status ?? DEFAULT_STATUS,
        });
        await em.flush();
        const view = toPetView(entity);
        this.events.created(em, view, requestMeta(requestId));
        return view;
      }),
    );
  }

  /** A full replace: an omitted status takes its default, as on create. */
  async replace({ id, pet, requestId }: ReplacePetCommand): Promise<PetView> {
    return this.update(id, requestId, pet.categoryId, { ...pet, status: pet.status ?? DEFAULT_STATUS });
  }

  async patch({ id, changes, requestId }: PatchPetCommand): Promise<PetView> {
    return this.update(id, requestId, changes.categoryId, changes);
  }

  async delete({ id, requestId }: ById): Promise<void> {
    const petId = parsePathId(id);
    if (petId === undefined) throw petNotFound(id);
    await this.em.transactional(async (em) => {
      if ((await em.nativeDelete(Pet, { id: petId })) === 0) throw petNotFound(id);
      this.events.deleted(em, petId, requestMeta(requestId));
    });
  }

  /**
   * Statuses inventory recomputed, applied inside the caller's transaction as a set: the
   * latest per pet in one statement that locks and changes only the pets whose status differs
   * (a pet that is gone or already has that status is left alone), and each change is published
   * as PetUpdated caused by that recompute, so that every replica of the pet hears of it.
   */
  async applyStatuses(
    em: EntityManager,
    statuses: { petId: number; status: PetStatus; meta: EventMeta }[],
  ): Promise<void> {
    const latest = new Map(statuses.filter(({ petId }) => isIssuableId(petId)).map((one) => [one.petId, one]));
    if (latest.size === 0) return;
    const wanted = [...latest.values()];
    const metaOf = new Map(wanted.map(({ petId, meta }) => [petId, meta]));
    const changed = await executePrepared<PetRow & { previous_status: PetStatus }>(
      em,
      `with wanted as (
         select * from unnest(?::bigint[], ?::text[]) as w(id, status)
       ), before as (
         select p.id, p.status from pet p join wanted w on w.id = p.id
          where p.status <> w.status order by p.id for update of p
       )
       update pet p set status = w.status, updated_at = now()
         from wanted w, before b
        where p.id = w.id and b.id = p.id
       returning p.id, p.name, p.category_id, p.status, b.status as previous_status`,
      [wanted.map((one) => one.petId), wanted.map((one) => one.status)],
    );
    for (const row of changed) {
      const pet = petRowView(row);
      this.events.updated(em, pet, row.previous_status, metaOf.get(pet.id) as EventMeta);
    }
  }

  private async update(id: string, requestId: string, categoryId: number | undefined, changes: Partial<NewPet>) {
    const petId = parsePathId(id);
    if (petId === undefined) throw petNotFound(id);
    return this.mappingCategoryViolation(categoryId, () =>
      this.em.transactional(async (em) => {
        // The row lock orders concurrent writers, so each event's previousStatus is the status it really replaced.
        const pet = await em.findOne(Pet, petId, { lockMode: LockMode.PESSIMISTIC_WRITE });
        if (!pet) throw petNotFound(id);
        const before = toPetView(pet);
        if (changes.name !== undefined) pet.name = changes.name;
        if (changes.categoryId !== undefined) pet.category = categoryReference(em, changes.categoryId);
        if (changes.status !== undefined) pet.status = changes.status;
        const after = toPetView(pet);
        if (samePet(before, after)) return after;
        await em.flush();
        this.events.updated(em, after, before.status, requestMeta(requestId));
        return after;
      }),
    );
  }

  /**
   * The foreign key, not a prior read, decides whether the category exists: a category
   * deleted concurrently cannot slip through between the check and the write.
   */
  private async mappingCategoryViolation<T>(categoryId: number | undefined, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      if (categoryId !== undefined && violatedConstraint(error) === PET_CATEGORY_FOREIGN_KEY) {
        throw unknownCategory(categoryId);
      }
      throw error;
    }
  }
}

function categoryReference(em: EntityManager, categoryId: number): Category {
  // An id no category can have would be rounded by the driver into one that might exist.
  if (!isIssuableId(categoryId)) throw unknownCategory(categoryId);
  return em.getReference(Category, categoryId);
}
