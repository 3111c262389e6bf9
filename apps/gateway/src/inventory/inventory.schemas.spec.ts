import { RequestValidator } from '../testing/request-validator';
import { InventoryUpdateSchema, ListInventoryQuery } from './inventory.schemas';

describe('InventoryUpdate (PUT /v1/store/inventory/{petId})', () => {
  const validator = new RequestValidator(['petId'], undefined, InventoryUpdateSchema);
  const check = (body: unknown) => validator.validate({ params: { petId: '4' }, query: {}, body }).map(({ field, message }) => `${field} ${message}`);

  it('accepts 0 to 1,000,000', () => {
    expect(check({ quantity: 0 })).toEqual([]);
    expect(check({ quantity: 1_000_000 })).toEqual([]);
  });

  it.each([
    [{ quantity: -1 }, ['quantity must be at least 0']],
    [{ quantity: 1_000_001 }, ['quantity must be at most 1000000']],
    [{ quantity: 2.5 }, ['quantity must be an integer']],
    [{}, ['quantity is required']],
    [{ quantity: 1, status: 'sold' }, ['status is read-only']],
  ])('refuses %p', (body, expected) => {
    expect(check(body)).toEqual(expected);
  });

  it('refuses a path id that is not a positive int64', () => {
    expect(validator.validate({ params: { petId: '-4' }, query: {}, body: { quantity: 1 } })).toEqual([
      { field: 'petId', message: 'must be a positive 64-bit integer' },
    ]);
  });

  it('lists by status and pages by petId', () => {
    const list = new RequestValidator([], ListInventoryQuery, undefined);
    const request = { params: {}, query: { status: 'sold', after: '10' } as unknown, body: undefined };
    expect(list.validate(request)).toEqual([]);
    expect(request.query).toEqual({ status: ['sold'], after: 10, limit: 20 });
  });
});
