import { CreateRequestContext, MikroORM } from '@mikro-orm/postgresql';
import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  CatalogRpc,
  type ById,
  type Category,
  type CreateCategoryCommand,
  type ListCategoriesQuery,
  type Page,
  type ReplaceCategoryCommand,
} from '@petstore/contracts';
import { RpcHandler } from '@petstore/service-kit';
import { CategoriesService } from './categories.service';

/** Each message that works with entities gets its own EntityManager fork; the pure reads need none (see PetsController). */
@Controller()
export class CategoriesController {
  constructor(
    private readonly categories: CategoriesService,
    private readonly orm: MikroORM,
  ) {}

  @RpcHandler(CatalogRpc.listCategories)
  list(@Payload() query: ListCategoriesQuery): Promise<Page<Category>> {
    return this.categories.list(query);
  }

  @RpcHandler(CatalogRpc.createCategory)
  @CreateRequestContext()
  create(@Payload() command: CreateCategoryCommand): Promise<Category> {
    return this.categories.create(command);
  }

  @RpcHandler(CatalogRpc.getCategory)
  get(@Payload() query: ById): Promise<Category> {
    return this.categories.get(query);
  }

  @RpcHandler(CatalogRpc.replaceCategory)
  @CreateRequestContext()
  replace(@Payload() command: ReplaceCategoryCommand): Promise<Category> {
    return this.categories.replace(command);
  }

  @RpcHandler(CatalogRpc.deleteCategory)
  @CreateRequestContext()
  async delete(@Payload() command: ById): Promise<null> {
    await this.categories.delete(command);
    return null;
  }
}
