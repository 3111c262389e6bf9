import { defineEvent } from '../define-event';
import { idSchema, orderQuantitySchema } from '../schema-parts';
import { Topics } from '../topics';

export interface StockReleasedPayload {
  orderId: number;
  petId: number;
  /** Units given back to the free stock. */
  quantity: number;
}

export const StockReleased = defineEvent<'StockReleased', StockReleasedPayload>({
  type: 'StockReleased',
  summary: 'A cancelled approved order gave its units back.',
  topic: Topics.inventoryStock,
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
