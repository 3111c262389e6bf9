import type { Category as CategoryView } from '@petstore/contracts';
import type { Category } from './category.entity';

/** Takes the entity or a row read without one (pure reads). */
export function toCategoryView(category: Pick<Category, 'id' | 'name' | 'description'>): CategoryView {
  return {
    id: category.id,
    name: category.name,
    ...(category.description !== null && { description: category.description }),
  };
}

/** A category row read without an entity (pure reads): bigint columns arrive as strings. */
export interface CategoryRow {
  id: string | number;
  name: string;
  description: string | null;
}

export function categoryRowView(row: CategoryRow): CategoryView {
  return toCategoryView({ id: Number(row.id), name: row.name, description: row.description });
}
