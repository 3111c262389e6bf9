import { defineEvent } from '../define-event';
import { idSchema, orderQuantitySchema } from '../schema-parts';
import { Topics } from '../topics';

export interface OrderCancelledPayload {
  orderId: number;
  petId: number;
  quantity: number;
  /** The order's status before the cancellation. */
  previousStatus: 'placed' | 'approved';
}

/** orders → inventory: give back whatever was reserved for the order, if anything. */
export const OrderCancelled = defineEvent<'OrderCancelled', OrderCancelledPayload>({
  type: 'OrderCancelled',
  topic: Topics.ordersOrder,
  schemaVersion: 1,
  key: (payload) => payload.petId,
  schema: {
    type: 'object',
    required: ['orderId', 'petId', 'quantity', 'previousStatus'],
    additionalProperties: false,
    properties: {
      orderId: idSchema,
      petId: idSchema,
      quantity: orderQuantitySchema,
      previousStatus: { type: 'string', enum: ['placed', 'approved'] },
    },
  },
});
