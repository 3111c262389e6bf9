import { defineEvent } from '../define-event';
import { idSchema, orderQuantitySchema } from '../schema-parts';
import { Topics } from '../topics';

export interface OrderDeliveredPayload {
  orderId: number;
  petId: number;
  quantity: number;
}

/** orders → inventory: the reservation is closed and the pet's status recomputed. */
export const OrderDelivered = defineEvent<'OrderDelivered', OrderDeliveredPayload>({
  type: 'OrderDelivered',
  topic: Topics.ordersOrder,
  schemaVersion: 1,
  key: (payload) => payload.petId,
  schema: {
    type: 'object',
    required: ['orderId', 'petId', 'quantity'],
    additionalProperties: false,
    properties: { orderId: idSchema, petId: idSchema, quantity: orderQuantitySchema },
  },
});
