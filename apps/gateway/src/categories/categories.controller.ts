import { Body, Controller, Delete, Get, Param, Post, Put, Query, Req, Res } from '@nestjs/common';
import {
  CatalogPatterns,
  type ById,
  type Category,
  type CreateCategoryCommand,
  type ListCategoriesQuery,
  type NewCategory,
  type Page,
  type ReplaceCategoryCommand,
} from '@petstore/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sendPage } from '../common/paging';
import { Operation } from '../operations/operation.decorator';
import { Upstream } from '../upstream/upstream.service';
import { CategoriesSchema, CategorySchema, ListCategoriesQuery as ListCategoriesQuerySchema, NewCategorySchema } from './categories.schemas';

@Controller('v1/categories')
export class CategoriesController {
  constructor(private readonly upstream: Upstream) {}

  @Get()
  @Operation({
    operationId: 'listCategories',
    tag: 'Pets',
    summary: 'List categories',
    status: 200,
    query: ListCategoriesQuerySchema,
    response: CategoriesSchema,
    responseHeaders: ['Link'],
  })
  async list(
    @Query() query: Omit<ListCategoriesQuery, 'requestId'>,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Category[]> {
    const payload: ListCategoriesQuery = { ...query, requestId: request.id };
    const page = await this.upstream.send<Page<Category>>('catalog', CatalogPatterns.listCategories, payload);
    return sendPage(reply, request.url, page, (category) => category.id);
  }

  @Post()
  @Operation({
    operationId: 'createCategory',
    tag: 'Pets',
    summary: 'Add a category',
    status: 201,
    body: NewCategorySchema,
    response: CategorySchema,
    responseHeaders: ['Location'],
    errors: ['CATEGORY_NAME_TAKEN'],
  })
  async create(
    @Body() category: NewCategory,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Category> {
    const payload: CreateCategoryCommand = { category, requestId: request.id };
    const created = await this.upstream.send<Category>('catalog', CatalogPatterns.createCategory, payload);
    reply.header('location', `/v1/categories/${created.id}`);
    return created;
  }

  @Get(':categoryId')
  @Operation({
    operationId: 'getCategory',
    tag: 'Pets',
    summary: 'Find a category by id',
    status: 200,
    response: CategorySchema,
    errors: ['CATEGORY_NOT_FOUND'],
  })
  async get(@Param('categoryId') id: string, @Req() request: FastifyRequest): Promise<Category> {
    const payload: ById = { id, requestId: request.id };
    return this.upstream.send<Category>('catalog', CatalogPatterns.getCategory, payload);
  }

  @Put(':categoryId')
  @Operation({
    operationId: 'replaceCategory',
    tag: 'Pets',
    summary: 'Replace a category',
    description: 'A full replace: an omitted `description` is removed.',
    status: 200,
    body: NewCategorySchema,
    response: CategorySchema,
    errors: ['CATEGORY_NOT_FOUND', 'CATEGORY_NAME_TAKEN'],
  })
  async replace(@Param('categoryId') id: string, @Body() category: NewCategory, @Req() request: FastifyRequest): Promise<Category> {
    const payload: ReplaceCategoryCommand = { id, category, requestId: request.id };
    return this.upstream.send<Category>('catalog', CatalogPatterns.replaceCategory, payload);
  }

  @Delete(':categoryId')
  @Operation({
    operationId: 'deleteCategory',
    tag: 'Pets',
    summary: 'Delete a category',
    description: 'Refused with 409 `CATEGORY_IN_USE` while a pet belongs to it.',
    status: 204,
    errors: ['CATEGORY_NOT_FOUND', 'CATEGORY_IN_USE'],
  })
  async delete(@Param('categoryId') id: string, @Req() request: FastifyRequest): Promise<void> {
    const payload: ById = { id, requestId: request.id };
    await this.upstream.send<void>('catalog', CatalogPatterns.deleteCategory, payload);
  }
}
