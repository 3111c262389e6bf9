import type { PetStatus } from '../../model';
import { defineEvent } from '../define-event';
import { petViewSchema, type PetView } from '../pet-created/pet-created.event';
import { petStatusSchema } from '../schema-parts';
import { Topics } from '../topics';

export interface PetUpdatedPayload {
  pet: PetView;
  previousStatus: PetStatus;
}

/** catalog → inventory: a client changed the pet; a changed status is mirrored onto the inventory entry. */
export const PetUpdated = defineEvent<'PetUpdated', PetUpdatedPayload>({
  type: 'PetUpdated',
  topic: Topics.catalogPet,
  schemaVersion: 1,
  key: (payload) => payload.pet.id,
  schema: {
    type: 'object',
    required: ['pet', 'previousStatus'],
    additionalProperties: false,
    properties: { pet: petViewSchema, previousStatus: petStatusSchema },
  },
});
