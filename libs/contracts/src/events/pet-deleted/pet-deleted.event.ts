import { defineEvent } from '../define-event';
import { idSchema } from '../schema-parts';
import { Topics } from '../topics';

export interface PetDeletedPayload {
  petId: number;
}

/** catalog → inventory, orders: the pet is gone; its entry goes and its open orders are cancelled. */
export const PetDeleted = defineEvent<'PetDeleted', PetDeletedPayload>({
  type: 'PetDeleted',
  topic: Topics.catalogPet,
  schemaVersion: 1,
  key: (payload) => payload.petId,
  schema: {
    type: 'object',
    required: ['petId'],
    additionalProperties: false,
    properties: { petId: idSchema },
  },
});
