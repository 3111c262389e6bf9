import { RequestValidator } from '../testing/request-validator';
import { ListCategoriesQuery, NewCategorySchema } from './categories.schemas';

describe('NewCategory (POST and PUT /v1/categories)', () => {
  const validator = new RequestValidator([], undefined, NewCategorySchema);
  const check = (body: unknown) => validator.validate({ params: {}, query: {}, body }).map(({ field, message }) => `${field} ${message}`);

  it('accepts a name with or without a description', () => {
    expect(check({ name: 'Dogs' })).toEqual([]);
    expect(check({ name: 'Dogs', description: '' })).toEqual([]);
    expect(check({ name: 'ü'.repeat(50), description: '🐈'.repeat(500) })).toEqual([]);
  });

  it.each([
    ['no name', {}, ['name is required']],
    ['a 51-character name', { name: 'x'.repeat(51) }, ['name must be at most 50 characters long']],
    ['a blank name', { name: '   ' }, ['name must not be blank']],
    ['a 501-character description', { name: 'Dogs', description: 'x'.repeat(501) }, ['description must be at most 500 characters long']],
    ['a null description', { name: 'Dogs', description: null }, ['description must not be null']],
    ['the read-only id', { id: 1, name: 'Dogs' }, ['id is read-only']],
  ])('refuses %s', (_, body, expected) => {
    expect(check(body)).toEqual(expected);
  });

  it('pages like pets', () => {
    const list = new RequestValidator([], ListCategoriesQuery, undefined);
    const request = { params: {}, query: { limit: '5' } as unknown, body: undefined };
    expect(list.validate(request)).toEqual([]);
    expect(request.query).toEqual({ limit: 5, after: 0 });
    expect(list.validate({ params: {}, query: { name: 'Dogs' }, body: undefined })).toEqual([
      { field: 'name', message: 'is not a known query parameter' },
    ]);
  });
});
