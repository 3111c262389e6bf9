import type { Pet as PetView } from '@petstore/contracts';
import type { Pet } from './pet.entity';

/** The pet as clients and events see it; the category reference needs no load for its id. */
export function toPetView(pet: Pet): PetView {
  return { id: pet.id, name: pet.name, categoryId: pet.category.id, status: pet.status };
}

/** A pet row read without an entity (pure reads): bigint columns arrive as strings. */
export interface PetRow {
  id: string | number;
  name: string;
  category_id: string | number;
  status: PetView['status'];
}

export function petRowView(row: PetRow): PetView {
  return { id: Number(row.id), name: row.name, categoryId: Number(row.category_id), status: row.status };
}

/** The columns a PetRow holds. */
export const PET_ROW_COLUMNS = 'id, name, category_id, status';

export function samePet(a: PetView, b: PetView): boolean {
  return a.id === b.id && a.name === b.name && a.categoryId === b.categoryId && a.status === b.status;
}
