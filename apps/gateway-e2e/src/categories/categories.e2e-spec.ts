import { api } from '../support/stack';
import { allPages, createCategory, createPet, detailFields, expectError, uniqueName } from '../support/fixtures';

const INT64_MAX = '9223372036854775807';

describe('categories', () => {
  it('creates, reads, replaces and deletes a category', async () => {
    const name = uniqueName('Dogs');
    const created = await api('POST', '/v1/categories', { body: { name, description: 'Loyal friends' } });
    expect(created.status).toBe(201);
    expect(created.headers.get('content-type')).toMatch(/^application\/json\b/);
    expect(created.body).toEqual({ id: expect.any(Number), name, description: 'Loyal friends' });
    const { id } = created.body;
    expect(Number.isSafeInteger(id) && id > 0).toBe(true);

    const read = await api('GET', `/v1/categories/${id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);

    const renamed = uniqueName('Hounds');
    const replaced = await api('PUT', `/v1/categories/${id}`, { body: { name: renamed, description: 'Good noses' } });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toEqual({ id, name: renamed, description: 'Good noses' });

    // A full replace: the description not sent is no longer there.
    const withoutDescription = await api('PUT', `/v1/categories/${id}`, { body: { name: renamed } });
    expect(withoutDescription.status).toBe(200);
    expect(withoutDescription.body).toEqual({ id, name: renamed });
    expect((await api('GET', `/v1/categories/${id}`)).body).toEqual({ id, name: renamed });

    const deleted = await api('DELETE', `/v1/categories/${id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expectError(await api('GET', `/v1/categories/${id}`), 404, 'CATEGORY_NOT_FOUND');
    expectError(await api('DELETE', `/v1/categories/${id}`), 404, 'CATEGORY_NOT_FOUND');
    expectError(await api('PUT', `/v1/categories/${id}`, { body: { name: renamed } }), 404, 'CATEGORY_NOT_FOUND');
  });

  it('answers 404 CATEGORY_NOT_FOUND for the largest id and 400 for malformed ones', async () => {
    expectError(await api('GET', `/v1/categories/${INT64_MAX}`), 404, 'CATEGORY_NOT_FOUND');
    for (const id of ['abc', '0', '-1', '9223372036854775808']) {
      const response = await api('GET', `/v1/categories/${id}`);
      expectError(response, 400, 'VALIDATION_FAILED');
      expect(detailFields(response)).toEqual(['categoryId']);
    }
  });

  it('keeps names unique regardless of case: 409 CATEGORY_NAME_TAKEN', async () => {
    const name = uniqueName('Cats');
    const first = await createCategory(name);

    const again = await api('POST', '/v1/categories', { body: { name: name.toUpperCase() } });
    expectError(again, 409, 'CATEGORY_NAME_TAKEN');
    expectError(await api('POST', '/v1/categories', { body: { name } }), 409, 'CATEGORY_NAME_TAKEN');

    const other = await createCategory();
    expectError(await api('PUT', `/v1/categories/${other.id}`, { body: { name: name.toLowerCase() } }), 409, 'CATEGORY_NAME_TAKEN');
    expect((await api('GET', `/v1/categories/${other.id}`)).body).toEqual(other);

    // Its own name in another case is no conflict.
    const recased = await api('PUT', `/v1/categories/${first.id}`, { body: { name: name.toUpperCase() } });
    expect(recased.status).toBe(200);
    expect(recased.body).toEqual({ id: first.id, name: name.toUpperCase() });

    // Once the holder is gone, the name is free again.
    expect((await api('DELETE', `/v1/categories/${first.id}`)).status).toBe(204);
    expect((await api('POST', '/v1/categories', { body: { name } })).status).toBe(201);
  });

  it('refuses to delete a category while a pet belongs to it: 409 CATEGORY_IN_USE', async () => {
    const category = await createCategory();
    const pet = await createPet({ categoryId: category.id });

    expectError(await api('DELETE', `/v1/categories/${category.id}`), 409, 'CATEGORY_IN_USE');
    expect((await api('GET', `/v1/categories/${category.id}`)).body).toEqual(category);

    // Moving the pet away frees the category.
    const other = await createCategory();
    expect((await api('PATCH', `/v1/pets/${pet.id}`, { body: { categoryId: other.id } })).status).toBe(200);
    expect((await api('DELETE', `/v1/categories/${category.id}`)).status).toBe(204);

    expect((await api('DELETE', `/v1/pets/${pet.id}`)).status).toBe(204);
    expect((await api('DELETE', `/v1/categories/${other.id}`)).status).toBe(204);
  });

  it('pages by id with Link rel="next" until it is absent', async () => {
    // The list has no filter: start just before this test's categories (the e2e files run one at a time).
    const first = await createCategory();
    const created = [first];
    for (let i = 0; i < 4; i += 1) created.push(await createCategory());
    const start = `/v1/categories?after=${first.id - 1}`;

    const pages = await allPages(`${start}&limit=2`);
    expect(pages.map((page) => page.body)).toEqual([created.slice(0, 2), created.slice(2, 4), created.slice(4)]);

    const exact = await allPages(`${start}&limit=5`);
    expect(exact.map((page) => page.body)).toEqual([created]);

    const everything = (await allPages('/v1/categories?limit=100')).flatMap((page) => page.body as Array<{ id: number }>);
    const ids = everything.map((category) => category.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(ids.length);
    expect(everything.slice(-5)).toEqual(created);

    const byDefault = await api('GET', '/v1/categories');
    expect(byDefault.status).toBe(200);
    expect(byDefault.body.length).toBe(Math.min(20, everything.length));
    expect(byDefault.headers.get('link') !== null).toBe(everything.length > 20);
  });

  it('refuses limit 0 and 101, a negative after and unknown query parameters', async () => {
    expect((await api('GET', '/v1/categories?limit=1')).status).toBe(200);
    expect((await api('GET', '/v1/categories?limit=100')).status).toBe(200);
    for (const query of ['limit=0', 'limit=101', 'after=-1', 'name=Dogs']) {
      const response = await api('GET', `/v1/categories?${query}`);
      expectError(response, 400, 'VALIDATION_FAILED');
      expect(detailFields(response)).toEqual([query.split('=')[0]]);
    }
  });
});
