import { Controller, Req, Res } from '@nestjs/common';
import { CatalogRpc, type ListCategoriesQuery, type NewCategory } from '@petstore/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { created, Endpoint, paged, type Operation, type PathId } from '../http/operation';
import { Upstream } from '../upstream/upstream';
import { CategoriesSchema, CategorySchema, ListCategoriesQuery as ListCategoriesQuerySchema, NewCategorySchema } from './categories.schemas';

const list: Operation = {
  route: 'GET /v1/categories', operationId: 'listCategories', status: 200, query: ListCategoriesQuerySchema, response: CategoriesSchema, pagedBy: 'id',
  summary: 'List categories',
  description: 'Ordered by id.',
};
const create: Operation = {
  route: 'POST /v1/categories', operationId: 'createCategory', status: 201, body: NewCategorySchema, response: CategorySchema,
  errors: ['CATEGORY_NAME_TAKEN'],
  summary: 'Add a category',
  description: 'Names are unique regardless of case: a taken one is 409 `CATEGORY_NAME_TAKEN`.',
  location: (category) => `/v1/categories/${category.id}`,
};
const get: Operation = {
  route: 'GET /v1/categories/:categoryId', operationId: 'getCategory', status: 200, response: CategorySchema, errors: ['CATEGORY_NOT_FOUND'],
  summary: 'Find a category by id',
  description: 'The category with its name and description.',
};
const replace: Operation = {
  route: 'PUT /v1/categories/:categoryId', operationId: 'replaceCategory', status: 200, body: NewCategorySchema, response: CategorySchema,
  errors: ['CATEGORY_NOT_FOUND', 'CATEGORY_NAME_TAKEN'],
  summary: 'Replace a category',
  description: 'A full replace: an omitted `description` is removed.',
};
const remove: Operation = {
  route: 'DELETE /v1/categories/:categoryId', operationId: 'deleteCategory', status: 204, errors: ['CATEGORY_NOT_FOUND', 'CATEGORY_IN_USE'],
  summary: 'Delete a category',
  description: 'Refused with 409 `CATEGORY_IN_USE` while a pet belongs to it.',
};

/** Categories, in the catalog service (`/v1/categories`). */
@Controller()
export class CategoriesController {
  constructor(private readonly upstream: Upstream) {}

  @Endpoint(list)
  async list(@Req() request: FastifyRequest<{ Querystring: Omit<ListCategoriesQuery, 'requestId'> }>, @Res({ passthrough: true }) reply: FastifyReply) {
    return paged(list, request, reply, await this.upstream.call(CatalogRpc.listCategories, { ...request.query, requestId: request.id }));
  }

  @Endpoint(create)
  async create(@Req() request: FastifyRequest<{ Body: NewCategory }>, @Res({ passthrough: true }) reply: FastifyReply) {
    return created(create, reply, await this.upstream.call(CatalogRpc.createCategory, { category: request.body, requestId: request.id }));
  }

  @Endpoint(get)
  get(@Req() request: PathId<'categoryId'>) {
    return this.upstream.call(CatalogRpc.getCategory, { id: request.params.categoryId, requestId: request.id });
  }

  @Endpoint(replace)
  replace(@Req() request: PathId<'categoryId'> & FastifyRequest<{ Body: NewCategory }>) {
    return this.upstream.call(CatalogRpc.replaceCategory, { id: request.params.categoryId, category: request.body, requestId: request.id });
  }

  @Endpoint(remove)
  async remove(@Req() request: PathId<'categoryId'>): Promise<void> {
    await this.upstream.call(CatalogRpc.deleteCategory, { id: request.params.categoryId, requestId: request.id });
  }
}
