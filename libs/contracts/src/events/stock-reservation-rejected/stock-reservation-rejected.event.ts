import type { RejectionReason } from '../../model';
import { defineEvent } from '../define-event';
import { idSchema, rejectionReasonSchema } from '../schema-parts';
import { Topics } from '../topics';

export interface StockReservationRejectedPayload {
  orderId: number;
  petId: number;
  /** The first reason that applies. */
  reason: RejectionReason;
}

/** inventory → orders: the order is rejected. */
export const StockReservationRejected = defineEvent<'StockReservationRejected', StockReservationRejectedPayload>({
  type: 'StockReservationRejected',
  topic: Topics.inventoryStock,
  schemaVersion: 1,
  key: (payload) => payload.petId,
  schema: {
    type: 'object',
    required: ['orderId', 'petId', 'reason'],
    additionalProperties: false,
    properties: { orderId: idSchema, petId: idSchema, reason: rejectionReasonSchema },
  },
});
