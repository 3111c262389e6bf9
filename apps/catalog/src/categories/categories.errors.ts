import { DomainError } from '@petstore/service-kit';

export function categoryNotFound(id: string | number): DomainError {
  return new DomainError(404, 'CATEGORY_NOT_FOUND', `Category ${id} does not exist`);
}

export function unknownCategory(id: number): DomainError {
  return new DomainError(422, 'UNKNOWN_CATEGORY', `Category ${id} does not exist`);
}

export function categoryNameTaken(name: string): DomainError {
  return new DomainError(409, 'CATEGORY_NAME_TAKEN', `A category named "${name}" already exists`);
}

export function categoryInUse(id: number): DomainError {
  return new DomainError(409, 'CATEGORY_IN_USE', `Category ${id} still has pets`);
}
