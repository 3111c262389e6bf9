import { defineEvent } from '../define-event';
import { idSchema, orderQuantitySchema } from '../schema-parts';
import { Topics } from '../topics';

export interface OrderPlacedPayload {
  orderId: number;
  petId: number;
  quantity: number;
}

/** orders → inventory: decide whether the stock can take the order. */
export const OrderPlaced = defineEvent<'OrderPlaced', OrderPlacedPayload>({
  type: 'OrderPlaced',
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
