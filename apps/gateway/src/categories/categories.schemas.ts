import { After, Id, Limit, named, NOT_BLANK, page, type Schema } from '../operations/schema';

const categoryProperties = {
  name: { type: 'string', minLength: 1, maxLength: 50, pattern: NOT_BLANK, example: 'Dogs' },
  description: { type: 'string', maxLength: 500 },
} as const;

export const NewCategorySchema = named('NewCategory', {
  type: 'object',
  required: ['name'],
  properties: categoryProperties,
  additionalProperties: false,
  description: 'Names are unique regardless of case.',
});

export const CategorySchema = named('Category', {
  type: 'object',
  required: ['id', 'name'],
  properties: { id: { ...Id, readOnly: true }, ...categoryProperties },
});

export const CategoriesSchema = page('Categories', CategorySchema);

export const ListCategoriesQuery: Schema = {
  type: 'object',
  properties: { limit: Limit, after: After },
  additionalProperties: false,
};
