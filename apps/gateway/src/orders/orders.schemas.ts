import { ORDER_QUANTITY, ORDER_STATUSES, REJECTION_REASONS } from '@petstore/contracts';
import { Id, input, LookupId, named, object, page, pageQuery, ref, repeatable } from '../common/schemas';

export const OrderStatusSchema = named('OrderStatus', { type: 'string', enum: [...ORDER_STATUSES], description: 'Where the order stands in its saga.' });

/**
 * What `format: date-time` does not say: the year as written is 1970–9999 (1969-12-31 only with a
 * negative offset, which can still be 1970 in UTC), and there is no leap second. The instant's
 * exact bounds are the format's, as the description says.
 */
export const SHIP_DATE_PATTERN = '^(?:(?:19[7-9][0-9]|[2-9][0-9]{3})-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-5][0-9]|1969-12-31[Tt][0-9]{2}:[0-9]{2}:[0-5][0-9](?:\\.[0-9]+)?-)';

const shipDate = {
  type: 'string',
  format: 'date-time',
  pattern: SHIP_DATE_PATTERN,
  description: 'Expected or actual ship date: an RFC 3339 date-time from 1970-01-01T00:00:00Z to 9999-12-31T23:59:59Z, without a leap second.',
  example: '2026-05-01T10:00:00Z',
} as const;

const quantity = { type: 'integer', ...ORDER_QUANTITY, description: `Units of the pet: ${ORDER_QUANTITY.minimum} to ${ORDER_QUANTITY.maximum}.` } as const;

export const NewOrderSchema = named('NewOrder', input({ petId: Id, quantity, shipDate }, ['petId', 'quantity']));

/** PATCH an order: the only change a client makes is fulfilling it. */
export const OrderFulfilmentSchema = named(
  'OrderFulfilment',
  input({ complete: { type: 'boolean', enum: [true], description: 'Must be `true`: fulfils an approved order.' }, shipDate }, ['complete']),
);

/** The seed marks no field of Order as required; the services always send all but the optional ones. */
export const OrderSchema = named(
  'Order',
  object({
    id: { ...Id, readOnly: true },
    petId: Id,
    quantity,
    shipDate,
    status: ref(OrderStatusSchema),
    complete: { type: 'boolean', readOnly: true, description: 'True exactly when `status` is `delivered`.' },
    rejectionReason: { type: 'string', enum: [...REJECTION_REASONS], readOnly: true, description: 'Present only when `status` is `rejected`.' },
  }),
);

export const OrdersSchema = page('Orders', OrderSchema);

export const ListOrdersQuery = pageQuery({
  petId: { ...LookupId, description: 'Only the orders of this pet.' },
  status: repeatable(ref(OrderStatusSchema), 'Repeatable: orders with any of these statuses.'),
  complete: { type: 'boolean', description: '`true`: only delivered orders; `false`: only the others.' },
});
