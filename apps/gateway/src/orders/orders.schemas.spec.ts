import { RequestValidator } from '../testing/request-validator';
import { ListOrdersQuery, NewOrderSchema, OrderFulfilmentSchema } from './orders.schemas';

const messages = (validator: RequestValidator, body: unknown) =>
  validator.validate({ params: { orderId: '1' }, query: {}, body }).map(({ field, message }) => `${field} ${message}`);

describe('NewOrder (POST /v1/store/orders)', () => {
  const validator = new RequestValidator([], undefined, NewOrderSchema);

  it('accepts an order with or without a ship date', () => {
    expect(messages(validator, { petId: 1, quantity: 1 })).toEqual([]);
    expect(messages(validator, { petId: 1, quantity: 1000, shipDate: '2026-05-01T10:00:00+02:00' })).toEqual([]);
  });

  it.each([
    ['no petId', { quantity: 1 }, ['petId is required']],
    ['no quantity', { petId: 1 }, ['quantity is required']],
    ['quantity 0', { petId: 1, quantity: 0 }, ['quantity must be at least 1']],
    ['quantity 1001', { petId: 1, quantity: 1001 }, ['quantity must be at most 1000']],
    ['a fractional quantity', { petId: 1, quantity: 1.5 }, ['quantity must be an integer']],
    ['a quantity as text', { petId: 1, quantity: '2' }, ['quantity must be an integer']],
    ['a ship date without offset', { petId: 1, quantity: 1, shipDate: '2026-05-01T10:00:00' }, ['shipDate must be an RFC 3339 date-time such as 2026-05-01T10:00:00Z']],
    ['a null ship date', { petId: 1, quantity: 1, shipDate: null }, ['shipDate must not be null']],
    ['the read-only id', { id: 9, petId: 1, quantity: 1 }, ['id is read-only']],
    ['the read-only status', { petId: 1, quantity: 1, status: 'placed' }, ['status is read-only']],
    ['the read-only complete', { petId: 1, quantity: 1, complete: false }, ['complete is read-only']],
  ])('refuses %s', (_, body, expected) => {
    expect(messages(validator, body)).toEqual(expected);
  });
});

describe('PATCH /v1/store/orders/{orderId}', () => {
  const validator = new RequestValidator(['orderId'], undefined, OrderFulfilmentSchema);

  it('accepts complete: true, with or without a ship date', () => {
    expect(messages(validator, { complete: true })).toEqual([]);
    expect(messages(validator, { complete: true, shipDate: '2026-05-01T10:00:00Z' })).toEqual([]);
  });

  it.each([
    ['complete: false', { complete: false }, ['complete must be true']],
    ['no complete', { shipDate: '2026-05-01T10:00:00Z' }, ['complete is required']],
    ['complete as text', { complete: 'true' }, ['complete must be a boolean']],
    ['another field', { complete: true, status: 'delivered' }, ['status is read-only']],
    ['an empty body', {}, ['complete is required']],
  ])('refuses %s', (_, body, expected) => {
    expect(messages(validator, body)).toEqual(expected);
  });
});

describe('GET /v1/store/orders query', () => {
  const validator = new RequestValidator([], ListOrdersQuery, undefined);

  it('reads petId, repeatable status and complete', () => {
    const request = { params: {}, query: { petId: '3', status: ['placed', 'approved'], complete: 'true' } as unknown, body: undefined };
    expect(validator.validate(request)).toEqual([]);
    expect(request.query).toEqual({ petId: 3, status: ['placed', 'approved'], complete: true, limit: 20, after: 0 });
  });

  it.each([
    [{ complete: 'yes' }, 'complete must be a boolean'],
    [{ complete: '1' }, 'complete must be a boolean'],
    [{ status: 'shipped' }, 'status[0] must be one of placed, approved, rejected, delivered, cancelled'],
    [{ petId: 'x' }, 'petId must be an integer'],
  ])('refuses %p', (query, expected) => {
    const [detail] = validator.validate({ params: {}, query, body: undefined });
    expect(`${detail.field} ${detail.message}`).toBe(expected);
  });
});
