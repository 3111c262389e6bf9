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

/** inventory → orders: the order is approved. */
export const StockReserved = defineEvent<'StockReserved', StockReservedPayload>({
  type: 'StockReserved',
  topic: Topics.inventoryStock,
  schemaVersion: 1,
  key: (payload) => payload.petId,
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
