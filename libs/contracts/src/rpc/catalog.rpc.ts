import type { Category, NewCategory, NewPet, Pet, PetStatus } from '../model';
import { defineRpc, patternsOf } from './define-rpc';
import type { ById, Page, PageQuery, RpcRequest } from './rpc';

export interface ListPetsQuery extends RpcRequest, PageQuery {
  status?: PetStatus[];
  categoryId?: number;
  /** Case-insensitive substring of the name. */
  name?: string;
}

export interface CreatePetCommand extends RpcRequest {
  pet: NewPet;
}

export interface ReplacePetCommand extends ById {
  pet: NewPet;
}

export interface PatchPetCommand extends ById {
  changes: Partial<NewPet>;
}

/** `pets.details` answers the pet with its category; the gateway adds the inventory part. */
export interface PetWithCategory extends Pet {
  category: Category;
}

export type ListCategoriesQuery = RpcRequest & PageQuery;

export interface CreateCategoryCommand extends RpcRequest {
  category: NewCategory;
}

export interface ReplaceCategoryCommand extends ById {
  category: NewCategory;
}

/** What the catalog answers. A delete answers `null`. */
export const CatalogRpc = {
  listPets: defineRpc<ListPetsQuery, Page<Pet>>()('catalog', 'pets.list'),
  createPet: defineRpc<CreatePetCommand, Pet>()('catalog', 'pets.create'),
  getPet: defineRpc<ById, Pet>()('catalog', 'pets.get'),
  getPetDetails: defineRpc<ById, PetWithCategory>()('catalog', 'pets.details'),
  replacePet: defineRpc<ReplacePetCommand, Pet>()('catalog', 'pets.replace'),
  patchPet: defineRpc<PatchPetCommand, Pet>()('catalog', 'pets.patch'),
  deletePet: defineRpc<ById, null>()('catalog', 'pets.delete'),
  listCategories: defineRpc<ListCategoriesQuery, Page<Category>>()('catalog', 'categories.list'),
  createCategory: defineRpc<CreateCategoryCommand, Category>()('catalog', 'categories.create'),
  getCategory: defineRpc<ById, Category>()('catalog', 'categories.get'),
  replaceCategory: defineRpc<ReplaceCategoryCommand, Category>()('catalog', 'categories.replace'),
  deleteCategory: defineRpc<ById, null>()('catalog', 'categories.delete'),
};

export const CatalogPatterns = patternsOf(CatalogRpc);
