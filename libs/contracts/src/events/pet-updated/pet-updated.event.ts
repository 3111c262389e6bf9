import type { PetStatus } from '../../model';
import { defineEvent } from '../define-event';
import { petViewSchema, type PetView } from '../pet-created/pet-created.event';
import { petStatusSchema } from '../schema-parts';
import { Topics } from '../topics';

export interface PetUpdatedPayload {
  pet: PetView;
  previousStatus: PetStatus;
}

export const PetUpdated = defineEvent<'PetUpdated', PetUpdatedPayload>({
  type: 'PetUpdated',
  summary: 'A client changed the pet; a changed status is mirrored onto the inventory entry.',
  topic: Topics.catalogPet,
  schemaVersion: 1,
  key: '/pet/id',
  example: { pet: { id: 7, name: 'Rex', categoryId: 2, status: 'sold' }, previousStatus: 'available' },
  schema: {
    type: 'object',
    required: ['pet', 'previousStatus'],
    additionalProperties: false,
    properties: { pet: petViewSchema, previousStatus: petStatusSchema },
  },
});
