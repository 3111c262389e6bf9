import { ORDER_STATUSES, REJECTION_REASONS } from '@petstore/contracts';
import { After, Id, Limit, named, page, type Schema } from '../operations/schema';

export const OrderStatusSchema = named('OrderStatus', { type: 'string', enum: [...ORDER_STATUSES] });

const shipDate = {
  type: 'string',
  format: 'date-time',
  description: 'Expected or actual ship date, RFC 3339.',
  example: '2026-05-01T10:00:00Z',
} as const;

export const NewOrderSchema = named('NewOrder', {
  type: 'object',
  required: ['petId', 'quantity'],
  properties: {
    petId: Id,
    quantity: { type: 'integer', minimum: 1, maximum: 1000 },
    shipDate,
  },
  additionalProperties: false,
});

/** PATCH an order: the only change a client makes is fulfilling it. */
export const OrderFulfilmentSchema = named('OrderFulfilment', {
  type: 'object',
  required: ['complete'],
  properties: {
    complete: { type: 'boolean', enum: [true], description: 'Must be `true`: fulfils an approved order.' },
    shipDate,
  },
  additionalProperties: false,
});

/** The seed marks no field of Order as required; the services always send all but the optional ones. */
export const OrderSchema = named('Order', {
  type: 'object',
  properties: {
    id: { ...Id, readOnly: true },
    petId: Id,
    quantity: { type: 'integer', minimum: 1, maximum: 1000 },
    shipDate,
    status: OrderStatusSchema,
    complete: { type: 'boolean', readOnly: true, description: 'True exactly when `status` is `delivered`.' },
    rejectionReason: {
      type: 'string',
      enum: [...REJECTION_REASONS],
      readOnly: true,
      description: 'Present only when `status` is `rejected`.',
    },
  },
});

export const OrdersSchema = page('Orders', OrderSchema);

export const ListOrdersQuery: Schema = {
  type: 'object',
  properties: {
    petId: Id,
    status: { type: 'array', items: OrderStatusSchema, description: 'Repeatable: orders with any of these statuses.' },
    complete: { type: 'boolean' },
    limit: Limit,
    after: After,
  },
  additionalProperties: false,
};
