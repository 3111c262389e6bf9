import type { JSONSchemaType } from 'ajv';
import type { RejectionReason } from '../../model';
import { defineEvent } from '../define-event';
import { idSchema, orderQuantitySchema, rejectionReasonSchema } from '../schema-parts';
import { Topics } from '../topics';

export interface StockReservationRejectedPayload {
  orderId: number;
  petId: number;
  /** The first reason that applies. */
  reason: RejectionReason;
  /**
   * Units the order asked for (version 2), as in StockReserved, so that a consumer of the
   * decision reads the same fields from both answers. Absent from version 1 events.
   */
  quantity?: number;
}

const version1 = {
  type: 'object',
  required: ['orderId', 'petId', 'reason'],
  additionalProperties: false,
  properties: { orderId: idSchema, petId: idSchema, reason: rejectionReasonSchema },
} as const;

// ajv's JSONSchemaType spells an optional property `nullable: true`, which would let null through.
const version2 = {
  ...version1,
  properties: { ...version1.properties, quantity: orderQuantitySchema },
} as unknown as JSONSchemaType<StockReservationRejectedPayload>;

export const StockReservationRejected = defineEvent<'StockReservationRejected', StockReservationRejectedPayload>({
  type: 'StockReservationRejected',
  summary: 'The order is rejected, for the first reason that applies.',
  topic: Topics.inventoryStock,
  schemaVersion: 2,
  key: '/petId',
  example: { orderId: 42, petId: 7, reason: 'INSUFFICIENT_STOCK', quantity: 5 },
  schema: version2,
  previous: { schemaVersion: 1, schema: version1 },
});
