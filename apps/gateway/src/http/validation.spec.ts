import { After, Id, Limit, LookupId } from '../common/schemas';
import { RequestValidator } from '../testing/request-validator';
import { coerceQuery, isPathId } from './validation';

describe('isPathId', () => {
  it.each(['1', '42', '9007199254740993', '9223372036854775807'])('accepts %s', (text) => {
    expect(isPathId(text)).toBe(true);
  });

  it.each(['0', '-1', '+1', '01', '1.0', '1e3', '0x10', 'abc', '', ' 1', '9223372036854775808', '99999999999999999999', '１'])(
    'refuses %p',
    (text) => {
      expect(isPathId(text)).toBe(false);
    },
  );
});

describe('coerceQuery', () => {
  const schema = {
    type: 'object',
    properties: {
      status: { type: 'array', items: { type: 'string' } },
      categoryId: LookupId,
      complete: { type: 'boolean' },
      limit: Limit,
      after: After,
      name: { type: 'string' },
    },
    additionalProperties: false,
  };

  it('makes repeatable parameters arrays and converts integers and booleans', () => {
    expect(coerceQuery(schema, { status: 'sold', categoryId: '7', complete: 'false', name: '12' })).toEqual({
      status: ['sold'],
      categoryId: 7,
      complete: false,
      name: '12',
    });
    expect(coerceQuery(schema, { status: ['sold', 'pending'] })).toEqual({ status: ['sold', 'pending'] });
  });

  it('leaves what does not convert for the schema to refuse', () => {
    expect(coerceQuery(schema, { limit: '1e2', after: '0x10', categoryId: '', complete: 'yes' })).toEqual({
      limit: '1e2',
      after: '0x10',
      categoryId: '',
      complete: 'yes',
    });
    expect(coerceQuery(schema, { limit: ['1', '2'] })).toEqual({ limit: ['1', '2'] });
  });

  it('keeps unknown parameters and never reads inherited names', () => {
    expect(coerceQuery(schema, { constructor: '1', foo: 'x' })).toEqual({ constructor: '1', foo: 'x' });
  });

  it('turns integers beyond int64 into a value every bound refuses', () => {
    expect(coerceQuery(schema, { after: '9223372036854775808' })['after']).toBe(Number.MAX_VALUE);
    expect(coerceQuery(schema, { after: '9223372036854775807' })['after']).toBe(2 ** 63);
  });
});

describe('RequestValidator', () => {
  const query = { type: 'object', properties: { limit: Limit, after: After, categoryId: LookupId }, additionalProperties: false };
  const body = { type: 'object', required: ['petId'], properties: { petId: Id }, additionalProperties: false };

  it('checks path ids, query and body together and reports every problem', () => {
    const validator = new RequestValidator(['orderId'], query, body);
    const request = { params: { orderId: '0' }, query: { limit: '0', extra: '1' }, body: { petId: 'x', more: 1 } };
    expect(validator.validate(request)).toEqual([
      { field: 'orderId', message: 'must be a positive 64-bit integer' },
      { field: 'extra', message: 'is not a known query parameter' },
      { field: 'limit', message: 'must be at least 1' },
      { field: 'more', message: 'is not a known field' },
      { field: 'petId', message: 'must be an integer' },
    ]);
  });

  it('leaves the query coerced and defaulted for the controller', () => {
    const validator = new RequestValidator([], query, undefined);
    const request = { params: {}, query: { categoryId: '3' } as unknown, body: undefined };
    expect(validator.validate(request)).toEqual([]);
    expect(request.query).toEqual({ categoryId: 3, limit: 20, after: 0 });
  });

  it('forwards query ids beyond 2^53, which no service issues, as 2^53', () => {
    const validator = new RequestValidator([], query, body);
    const request = { params: {}, query: { categoryId: '9007199254740993', after: '9223372036854775807' } as unknown, body: { petId: 2 ** 53 - 1 } };
    expect(validator.validate(request)).toEqual([]);
    expect(request.query).toMatchObject({ categoryId: 2 ** 53, after: 2 ** 53 });
    expect(request.body).toEqual({ petId: 2 ** 53 - 1 });
  });

  // JSON.parse rounds 9007199254740993 to 2^53 and 9223372036854775806 to 2^63: every id a body
  // carries from 2^53 on arrives as 2^53 or more, and none is ever taken as another id.
  it.each([2 ** 53, 2 ** 60, 2 ** 63])('refuses a body id of %d, naming the field', (petId) => {
    const validator = new RequestValidator([], query, body);
    expect(validator.validate({ params: {}, query: {}, body: { petId } })).toEqual([{ field: 'petId', message: 'must be at most 9007199254740991' }]);
  });

  it('refuses ids beyond int64', () => {
    const validator = new RequestValidator([], query, body);
    expect(validator.validate({ params: {}, query: { categoryId: '99999999999999999999' }, body: { petId: 1e19 } })).toEqual([
      { field: 'categoryId', message: 'must be a 64-bit integer' },
      { field: 'petId', message: 'must be at most 9007199254740991' },
    ]);
  });

  it('requires the body of an operation that takes one', () => {
    const validator = new RequestValidator([], undefined, body);
    expect(validator.validate({ params: {}, query: {}, body: undefined })).toEqual([{ field: 'body', message: 'is required' }]);
    expect(validator.validate({ params: {}, query: {}, body: [] })).toEqual([{ field: 'body', message: 'must be an object' }]);
  });

  it('takes no body, or an empty object, where the operation has none, and no query parameters', () => {
    const validator = new RequestValidator(['orderId'], undefined, undefined);
    expect(validator.validate({ params: { orderId: '5' }, query: {}, body: undefined })).toEqual([]);
    expect(validator.validate({ params: { orderId: '5' }, query: {}, body: {} })).toEqual([]);
    expect(validator.validate({ params: { orderId: '5' }, query: { x: '1' }, body: { reason: 'x' } })).toEqual([
      { field: 'x', message: 'is not a known query parameter' },
      { field: 'body', message: 'must be empty' },
    ]);
  });
});
