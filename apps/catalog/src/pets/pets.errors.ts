import { DomainError } from '@petstore/service-kit';

export function petNotFound(id: string | number): DomainError {
  return new DomainError(404, 'PET_NOT_FOUND', `Pet ${id} does not exist`);
}
