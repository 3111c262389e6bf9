import { Id, input, named, NO_NUL, NOT_BLANK, object, page, pageQuery } from '../common/schemas';

const categoryProperties = {
  name: { type: 'string', minLength: 1, maxLength: 50, pattern: NOT_BLANK, example: 'Dogs', description: '1 to 50 characters, not blank; unique regardless of case.' },
  description: { type: 'string', maxLength: 500, pattern: NO_NUL, description: 'At most 500 characters.' },
} as const;

export const NewCategorySchema = named('NewCategory', input(categoryProperties, ['name'], { description: 'Names are unique regardless of case.' }));

export const CategorySchema = named('Category', object({ id: { ...Id, readOnly: true }, ...categoryProperties }, ['id', 'name']));

export const CategoriesSchema = page('Categories', CategorySchema);

export const ListCategoriesQuery = pageQuery();
