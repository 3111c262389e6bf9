import { EntityManager } from '@mikro-orm/postgresql';
import { RowsById, SharedReads } from '@petstore/database';
import { Injectable } from '@nestjs/common';
import type {
  Category as CategoryView,
  ById,
  CreateCategoryCommand,
  ListCategoriesQuery,
  NewCategory,
  Page,
  ReplaceCategoryCommand,
} from '@petstore/contracts';
import { pageCursor, pageLimit, pageOf, parsePathId } from '@petstore/service-kit';
import { violatedConstraint } from '../common/constraint-violation';
import { categoryInUse, categoryNameTaken, categoryNotFound } from './categories.errors';
import { Category } from './category.entity';
import { categoryRowView, toCategoryView, type CategoryRow } from './category.view';

const NAME_UNIQUE_INDEX = 'category_name_lower_key';
const PET_CATEGORY_FOREIGN_KEY = 'pet_category_id_fkey';

/** Its entity work expects a request context (the controller creates one for each message that does any); list and get are plain SQL and need none. */
@Injectable()
export class CategoriesService {
  /** Pure reads are plain SQL, no entities to build and track, and those of one event-loop turn go together. */
  private readonly reads: SharedReads;
  private readonly byId: RowsById<CategoryRow>;

  constructor(private readonly em: EntityManager) {
    this.reads = new SharedReads(em);
    this.byId = new RowsById<CategoryRow>(em, 'select id, name, description from category where id = any(?::bigint[])', 'id');
  }

  async list(query: ListCategoriesQuery): Promise<Page<CategoryView>> {
    const limit = pageLimit(query.limit);
    const rows = await this.reads.read<CategoryRow>('select id, name, description from category where id > ? order by id limit ?', [
      pageCursor(query.after),
      limit + 1,
    ]);
    return pageOf(rows.map(categoryRowView), limit);
  }

  async get({ id }: ById): Promise<CategoryView> {
    const categoryId = parsePathId(id);
    const row = categoryId === undefined ? undefined : await this.byId.load(categoryId);
    if (!row) throw categoryNotFound(id);
    return categoryRowView(row);
  }

  async create({ category }: CreateCategoryCommand): Promise<CategoryView> {
    const entity = this.em.create(Category, fields(category));
    await this.flushUniqueName(category.name);
    return toCategoryView(entity);
  }

  async replace({ id, category }: ReplaceCategoryCommand): Promise<CategoryView> {
    const entity = await this.find(id);
    this.em.assign(entity, fields(category));
    await this.flushUniqueName(category.name);
    return toCategoryView(entity);
  }

  async delete({ id }: ById): Promise<void> {
    const categoryId = parsePathId(id);
    if (categoryId === undefined) throw categoryNotFound(id);
    let deleted: number;
    try {
      // The foreign key from pet refuses the delete while a pet belongs to the category, even one created concurrently.
      deleted = await this.em.nativeDelete(Category, { id: categoryId });
    } catch (error) {
      if (violatedConstraint(error) === PET_CATEGORY_FOREIGN_KEY) throw categoryInUse(categoryId);
      throw error;
    }
    if (deleted === 0) throw categoryNotFound(id);
  }

  private async find(id: string): Promise<Category> {
    const categoryId = parsePathId(id);
    const category = categoryId === undefined ? null : await this.em.findOne(Category, categoryId);
    if (!category) throw categoryNotFound(id);
    return category;
  }

  /** The unique index settles concurrent writers of the same name; a prior read could not. */
  private async flushUniqueName(name: string): Promise<void> {
    try {
      await this.em.flush();
    } catch (error) {
      if (violatedConstraint(error) === NAME_UNIQUE_INDEX) throw categoryNameTaken(name);
      throw error;
    }
  }
}

/** A replace is complete: an omitted description is removed. */
function fields(category: NewCategory): Pick<Category, 'name' | 'description'> {
  return { name: category.name, description: category.description ?? null };
}
