import { defineEvent } from '../define-event';
import { idSchema, orderQuantitySchema } from '../schema-parts';
import { Topics } from '../topics';

export interface StockReleasedPayload {
  orderId: number;
  petId: number;
  /** Units given back to the free stock. */
  quantity: number;
}

/** inventory → (observers): a cancelled approved order gave its units back. */
export const StockReleased = defineEvent<'StockReleased', StockReleasedPayload>({
  type: 'StockReleased',
  topic: Topics.inventoryStock,
  schemaVersion: 1,
  key: (payload) => payload.petId,
  schema: {
    type: 'object',
    required: ['orderId', 'petId', 'quantity'],
    additionalProperties: false,
    properties: { orderId: idSchema, petId: idSchema, quantity: orderQuantitySchema },
  },
});
