import { defineEvent } from '../define-event';
import { idSchema, orderQuantitySchema } from '../schema-parts';
import { Topics } from '../topics';

export interface OrderDeliveredPayload {
  orderId: number;
  petId: number;
  quantity: number;
}

export const OrderDelivered = defineEvent<'OrderDelivered', OrderDeliveredPayload>({
  type: 'OrderDelivered',
  summary: "An approved order was delivered: its reservation is closed and the pet's status recomputed.",
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
