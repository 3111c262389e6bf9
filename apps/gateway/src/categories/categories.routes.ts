import { CatalogRpc, type ListCategoriesQuery, type NewCategory } from '@petstore/contracts';
import type { Operation, PathId } from '../http/operation';
import type { Upstream } from '../upstream/upstream';
import { CategoriesSchema, CategorySchema, ListCategoriesQuery as ListCategoriesQuerySchema, NewCategorySchema } from './categories.schemas';

export function categoriesOperations(upstream: Upstream): Operation[] {
  const list: Operation<{ Querystring: Omit<ListCategoriesQuery, 'requestId'> }> = {
    route: 'GET /v1/categories', operationId: 'listCategories', status: 200, query: ListCategoriesQuerySchema, response: CategoriesSchema, pagedBy: 'id',
    summary: 'List categories',
    description: 'Ordered by id.',
    handle: (request) => upstream.call(CatalogRpc.listCategories, { ...request.query, requestId: request.id }),
  };
  const create: Operation<{ Body: NewCategory }> = {
    route: 'POST /v1/categories', operationId: 'createCategory', status: 201, body: NewCategorySchema, response: CategorySchema,
    errors: ['CATEGORY_NAME_TAKEN'],
    summary: 'Add a category',
    description: 'Names are unique regardless of case: a taken one is 409 `CATEGORY_NAME_TAKEN`.',
    location: (category) => `/v1/categories/${category.id}`,
    handle: (request) => upstream.call(CatalogRpc.createCategory, { category: request.body, requestId: request.id }),
  };
  const get: Operation<PathId<'categoryId'>> = {
    route: 'GET /v1/categories/:categoryId', operationId: 'getCategory', status: 200, response: CategorySchema, errors: ['CATEGORY_NOT_FOUND'],
    summary: 'Find a category by id',
    description: 'The category with its name and description.',
    handle: (request) => upstream.call(CatalogRpc.getCategory, { id: request.params.categoryId, requestId: request.id }),
  };
  const replace: Operation<PathId<'categoryId'> & { Body: NewCategory }> = {
    route: 'PUT /v1/categories/:categoryId', operationId: 'replaceCategory', status: 200, body: NewCategorySchema, response: CategorySchema,
    errors: ['CATEGORY_NOT_FOUND', 'CATEGORY_NAME_TAKEN'],
    summary: 'Replace a category',
    description: 'A full replace: an omitted `description` is removed.',
    handle: (request) => upstream.call(CatalogRpc.replaceCategory, { id: request.params.categoryId, category: request.body, requestId: request.id }),
  };
  const remove: Operation<PathId<'categoryId'>> = {
    route: 'DELETE /v1/categories/:categoryId', operationId: 'deleteCategory', status: 204, errors: ['CATEGORY_NOT_FOUND', 'CATEGORY_IN_USE'],
    summary: 'Delete a category',
    description: 'Refused with 409 `CATEGORY_IN_USE` while a pet belongs to it.',
    handle: (request) => upstream.call(CatalogRpc.deleteCategory, { id: request.params.categoryId, requestId: request.id }),
  };
  return [list, create, get, replace, remove] as Operation[];
}
