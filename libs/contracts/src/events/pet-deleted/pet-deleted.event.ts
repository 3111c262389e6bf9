import { defineEvent } from '../define-event';
import { idSchema } from '../schema-parts';
import { Topics } from '../topics';

export interface PetDeletedPayload {
  petId: number;
}

export const PetDeleted = defineEvent<'PetDeleted', PetDeletedPayload>({
  type: 'PetDeleted',
  summary: 'The pet is gone; its entry goes and its open orders are cancelled.',
  topic: Topics.catalogPet,
  schemaVersion: 1,
  key: '/petId',
  example: { petId: 7 },
  schema: {
    type: 'object',
    required: ['petId'],
    additionalProperties: false,
    properties: { petId: idSchema },
  },
});
