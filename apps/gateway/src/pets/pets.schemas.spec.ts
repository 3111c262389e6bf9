import { RequestValidator } from '../testing/request-validator';
import { ListPetsQuery, NewPetSchema, PetPatchSchema } from './pets.schemas';

const fieldsOf = (validator: RequestValidator, body: unknown) =>
  validator.validate({ params: {}, query: {}, body }).map(({ field, message }) => `${field} ${message}`);

describe('NewPet (POST and PUT /v1/pets)', () => {
  const validator = new RequestValidator([], undefined, NewPetSchema);

  it('accepts a pet and defaults its status to available', () => {
    const body = { name: 'Rex', categoryId: 1 };
    expect(fieldsOf(validator, body)).toEqual([]);
    expect(body).toEqual({ name: 'Rex', categoryId: 1, status: 'available' });
  });

  it('keeps a given status', () => {
    const body = { name: 'Rex', categoryId: 1, status: 'sold' };
    expect(fieldsOf(validator, body)).toEqual([]);
    expect(body.status).toBe('sold');
  });

  it('counts the name in code points: 100 emoji fit, 101 do not', () => {
    expect(fieldsOf(validator, { name: '🐕'.repeat(100), categoryId: 1 })).toEqual([]);
    expect(fieldsOf(validator, { name: '🐕'.repeat(101), categoryId: 1 })).toEqual(['name must be at most 100 characters long']);
    expect(fieldsOf(validator, { name: 'x'.repeat(100), categoryId: 1 })).toEqual([]);
  });

  it.each([
    ['no name', { categoryId: 1 }, ['name is required']],
    ['no categoryId', { name: 'Rex' }, ['categoryId is required']],
    ['an empty name', { name: '', categoryId: 1 }, ['name must be at least 1 character long']],
    ['a blank name', { name: ' \t\u00a0', categoryId: 1 }, ['name must not be blank']],
    ['a name that is a number', { name: 5, categoryId: 1 }, ['name must be a string']],
    ['a null name', { name: null, categoryId: 1 }, ['name must not be null']],
    ['a categoryId as text', { name: 'Rex', categoryId: '1' }, ['categoryId must be an integer']],
    ['a fractional categoryId', { name: 'Rex', categoryId: 1.5 }, ['categoryId must be an integer']],
    ['categoryId 0', { name: 'Rex', categoryId: 0 }, ['categoryId must be at least 1']],
    ['a negative categoryId', { name: 'Rex', categoryId: -3 }, ['categoryId must be at least 1']],
    ['an unknown status', { name: 'Rex', categoryId: 1, status: 'lost' }, ['status must be one of available, pending, sold']],
    ['a null status', { name: 'Rex', categoryId: 1, status: null }, ['status must not be null']],
    ['the read-only id', { id: 3, name: 'Rex', categoryId: 1 }, ['id is read-only']],
    ['an unknown field', { name: 'Rex', categoryId: 1, tags: [] }, ['tags is not a known field']],
    ['an array', [], ['body must be an object']],
    ['a string', 'Rex', ['body must be an object']],
  ])('refuses %s', (_, body, expected) => {
    expect(fieldsOf(validator, body)).toEqual(expected);
  });
});

describe('PetPatch (PATCH /v1/pets/{petId})', () => {
  const validator = new RequestValidator(['petId'], undefined, PetPatchSchema);
  const patch = (body: unknown) => validator.validate({ params: { petId: '1' }, query: {}, body }).map(({ field, message }) => `${field} ${message}`);

  it('accepts any non-empty subset and defaults nothing', () => {
    const body = { name: 'Max' };
    expect(patch(body)).toEqual([]);
    expect(body).toEqual({ name: 'Max' });
    expect(patch({ status: 'pending' })).toEqual([]);
    expect(patch({ categoryId: 2, status: 'sold', name: 'Rex' })).toEqual([]);
  });

  it.each([
    ['an empty object', {}, ['body must have at least one field']],
    ['null as a removal', { name: null }, ['name must not be null']],
    ['a blank name', { name: '  ' }, ['name must not be blank']],
    ['the id', { id: 2 }, ['id is read-only']],
    ['no body', undefined, ['body is required']],
  ])('refuses %s', (_, body, expected) => {
    expect(patch(body)).toEqual(expected);
  });
});

describe('GET /v1/pets query', () => {
  const validator = new RequestValidator([], ListPetsQuery, undefined);
  const list = (query: Record<string, unknown>) => {
    const request = { params: {}, query: query as unknown, body: undefined };
    const details = validator.validate(request);
    return { details: details.map(({ field, message }) => `${field} ${message}`), query: request.query };
  };

  it('defaults the paging and takes repeatable status', () => {
    expect(list({})).toEqual({ details: [], query: { limit: 20, after: 0 } });
    expect(list({ status: ['available', 'sold'], categoryId: '2', name: 'ex', limit: '100', after: '40' })).toEqual({
      details: [],
      query: { status: ['available', 'sold'], categoryId: 2, name: 'ex', limit: 100, after: 40 },
    });
    expect(list({ status: 'pending' }).query).toMatchObject({ status: ['pending'] });
  });

  it.each([
    [{ limit: '0' }, ['limit must be at least 1']],
    [{ limit: '101' }, ['limit must be at most 100']],
    [{ limit: 'ten' }, ['limit must be an integer']],
    [{ limit: '2.5' }, ['limit must be an integer']],
    [{ limit: ['1', '2'] }, ['limit must be an integer']],
    [{ after: '-1' }, ['after must be at least 0']],
    [{ categoryId: '0' }, ['categoryId must be at least 1']],
    [{ status: ['available', 'lost'] }, ['status[1] must be one of available, pending, sold']],
    [{ name: '' }, ['name must be at least 1 character long']],
    [{ sort: 'name' }, ['sort is not a known query parameter']],
  ])('refuses %p', (query, expected) => {
    expect(list(query).details).toEqual(expected);
  });
});
