import { defineEvent } from '../define-event';
import { idSchema, orderQuantitySchema } from '../schema-parts';
import { Topics } from '../topics';

export interface OrderPlacedPayload {
  orderId: number;
  petId: number;
  quantity: number;
}

export const OrderPlaced = defineEvent<'OrderPlaced', OrderPlacedPayload>({
  type: 'OrderPlaced',
  summary: 'An order was placed; inventory decides whether the stock can take it.',
  topic: Topics.ordersOrder,
  schemaVersion: 1,
  key: '/petId',
  example: { orderId: 41, petId: 7, quantity: 2 },
  schema: {
    type: 'object',
    required: ['orderId', 'petId', 'quantity'],
    additionalProperties: false,
    properties: { orderId: idSchema, petId: idSchema, quantity: orderQuantitySchema },
  },
});
