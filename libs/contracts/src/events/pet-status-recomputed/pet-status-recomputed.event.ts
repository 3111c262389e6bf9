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

/** inventory → catalog: a stock change recomputed the pet's status; the catalog's pet takes it. */
export const PetStatusRecomputed = defineEvent<'PetStatusRecomputed', PetStatusRecomputedPayload>({
  type: 'PetStatusRecomputed',
  topic: Topics.inventoryPetStatus,
  schemaVersion: 1,
  key: (payload) => payload.petId,
  schema: {
    type: 'object',
    required: ['petId', 'status', 'quantity'],
    additionalProperties: false,
    properties: { petId: idSchema, status: petStatusSchema, quantity: stockQuantitySchema },
  },
});
