import type { Pet as PetView } from '@petstore/contracts';
import type { Pet } from './pet.entity';

/** The pet as clients and events see it; the category reference needs no load for its id. */
export function toPetView(pet: Pet): PetView {
  return { id: pet.id, name: pet.name, categoryId: pet.category.id, status: pet.status };
}

export function samePet(a: PetView, b: PetView): boolean {
  return a.id === b.id && a.name === b.name && a.categoryId === b.categoryId && a.status === b.status;
}
