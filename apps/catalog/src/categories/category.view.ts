import type { Category as CategoryView } from '@petstore/contracts';
import type { Category } from './category.entity';

export function toCategoryView(category: Category): CategoryView {
  return {
    id: category.id,
    name: category.name,
    ...(category.description !== null && { description: category.description }),
  };
}
