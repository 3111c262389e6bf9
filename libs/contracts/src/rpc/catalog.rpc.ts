import type { Category, NewCategory, NewPet, Pet, PetStatus } from '../model';
import type { ById, PageQuery, RpcRequest } from './rpc';

export const CatalogPatterns = {
  listPets: { cmd: 'pets.list' },
  createPet: { cmd: 'pets.create' },
  getPet: { cmd: 'pets.get' },
  getPetDetails: { cmd: 'pets.details' },
  replacePet: { cmd: 'pets.replace' },
  patchPet: { cmd: 'pets.patch' },
  deletePet: { cmd: 'pets.delete' },
  listCategories: { cmd: 'categories.list' },
  createCategory: { cmd: 'categories.create' },
  getCategory: { cmd: 'categories.get' },
  replaceCategory: { cmd: 'categories.replace' },
  deleteCategory: { cmd: 'categories.delete' },
} as const;

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
