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
