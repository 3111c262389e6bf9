import { defineEvent } from '../define-event';
import { idSchema, orderQuantitySchema, stockQuantitySchema } from '../schema-parts';
import { Topics } from '../topics';

export interface StockReservedPayload {
  orderId: number;
  petId: number;
  quantity: number;
  /** Free stock left after the reservation. */
  remaining: number;
}

export const StockReserved = defineEvent<'StockReserved', StockReservedPayload>({
  type: 'StockReserved',
  summary: 'The order is approved: its units are taken from the free stock.',
  topic: Topics.inventoryStock,
  schemaVersion: 1,
  key: '/petId',
  example: { orderId: 41, petId: 7, quantity: 2, remaining: 3 },
  schema: {
    type: 'object',
    required: ['orderId', 'petId', 'quantity', 'remaining'],
    additionalProperties: false,
    properties: {
      orderId: idSchema,
      petId: idSchema,
      quantity: orderQuantitySchema,
      remaining: stockQuantitySchema,
    },
  },
});
