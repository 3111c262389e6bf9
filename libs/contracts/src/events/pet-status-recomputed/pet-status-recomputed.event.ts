import type { PetStatus } from '../../model';
import { defineEvent } from '../define-event';
import { idSchema, petStatusSchema, stockQuantitySchema } from '../schema-parts';
import { Topics } from '../topics';

export interface PetStatusRecomputedPayload {
  petId: number;
  status: PetStatus;
  /** Free stock the status was computed from. */
  quantity: number;
}

export const PetStatusRecomputed = defineEvent<'PetStatusRecomputed', PetStatusRecomputedPayload>({
  type: 'PetStatusRecomputed',
  summary: "A stock change recomputed the pet's status; the catalog's pet takes it.",
  topic: Topics.inventoryPetStatus,
  schemaVersion: 1,
  key: '/petId',
  example: { petId: 7, status: 'pending', quantity: 0 },
  schema: {
    type: 'object',
    required: ['petId', 'status', 'quantity'],
    additionalProperties: false,
    properties: { petId: idSchema, status: petStatusSchema, quantity: stockQuantitySchema },
  },
});
