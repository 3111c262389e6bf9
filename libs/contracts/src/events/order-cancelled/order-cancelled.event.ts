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

export const OrderCancelled = defineEvent<'OrderCancelled', OrderCancelledPayload>({
  type: 'OrderCancelled',
  summary: 'An order was cancelled; whatever was reserved for it goes back to the free stock.',
  topic: Topics.ordersOrder,
  schemaVersion: 1,
  key: '/petId',
  example: { orderId: 41, petId: 7, quantity: 2, previousStatus: 'approved' },
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
