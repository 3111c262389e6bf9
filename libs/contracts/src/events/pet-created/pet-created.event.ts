import type { JSONSchemaType } from 'ajv';
import type { Pet } from '../../model';
import { defineEvent } from '../define-event';
import { idSchema, petStatusSchema } from '../schema-parts';
import { Topics } from '../topics';

/** The pet as the catalog holds it after the change. */
export type PetView = Pet;

export const petViewSchema: JSONSchemaType<PetView> = {
  type: 'object',
  required: ['id', 'name', 'categoryId', 'status'],
  additionalProperties: false,
  properties: {
    id: idSchema,
    name: { type: 'string', minLength: 1, maxLength: 100 },
    categoryId: idSchema,
    status: petStatusSchema,
  },
};

export interface PetCreatedPayload {
  pet: PetView;
}

export const PetCreated = defineEvent<'PetCreated', PetCreatedPayload>({
  type: 'PetCreated',
  summary: "A pet exists; its inventory entry starts at quantity 0 with the pet's status.",
  topic: Topics.catalogPet,
  schemaVersion: 1,
  key: '/pet/id',
  example: { pet: { id: 7, name: 'Rex', categoryId: 2, status: 'available' } },
  schema: {
    type: 'object',
    required: ['pet'],
    additionalProperties: false,
    properties: { pet: petViewSchema },
  },
});
