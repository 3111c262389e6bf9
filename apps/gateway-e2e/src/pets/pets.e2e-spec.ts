import { api, eventually } from '../support/stack';
import { petstore } from '../support/client';
import { allPages, createCategory, createPet, detailFields, expectError, uniqueName, type ApiResponse } from '../support/fixtures';

const DEPRECATION = '@1793491200';
const SUNSET = 'Wed, 30 Jun 2027 23:59:59 GMT';
const INT64_MAX = '9223372036854775807';

function expectDeprecated(response: ApiResponse, petId: string | number): void {
  expect({
    deprecation: response.headers.get('deprecation'),
    sunset: response.headers.get('sunset'),
    link: response.headers.get('link'),
  }).toEqual({ deprecation: DEPRECATION, sunset: SUNSET, link: `</v2/pets/${petId}>; rel="successor-version"` });
}

/** Every detail names the parameter (a repeatable one may be named with its index). */
function expectDetailsAbout(response: ApiResponse, parameter: string): void {
  const fields = detailFields(response);
  expect(fields.length).toBeGreaterThan(0);
  for (const field of fields) expect(field).toMatch(new RegExp(`^${parameter}\\b`));
}

async function petsOf(categoryId: number, query = ''): Promise<ApiResponse> {
  const response = await api('GET', `/v1/pets?categoryId=${categoryId}${query}`);
  expect(response.status).toBe(200);
  return response;
}

describe('POST /v1/pets', () => {
  it('creates a pet: 201, the Pet, Location /v2/pets/{id}, status available by default', async () => {
    const category = await createCategory();
    const name = uniqueName('Rex');
    const response = await api('POST', '/v1/pets', { body: { name, categoryId: category.id } });

    expect(response.status).toBe(201);
    expect(response.headers.get('content-type')).toMatch(/^application\/json\b/);
    expect(response.body).toEqual({ id: expect.any(Number), name, categoryId: category.id, status: 'available' });
    expect(Number.isSafeInteger(response.body.id) && response.body.id > 0).toBe(true);
    expect(response.headers.get('location')).toBe(`/v2/pets/${response.body.id}`);

    const read = await api('GET', `/v1/pets/${response.body.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(response.body);
  });

  it('keeps a status given on create', async () => {
    const category = await createCategory();
    const response = await api('POST', '/v1/pets', { body: { name: uniqueName('Tom'), categoryId: category.id, status: 'pending' } });
    expect(response.status).toBe(201);
    expect(response.body.status).toBe('pending');
  });

  it('refuses an unknown categoryId with 422 UNKNOWN_CATEGORY and creates nothing', async () => {
    const name = uniqueName('Ghost');
    const before = await api('GET', `/v1/pets?name=${encodeURIComponent(name)}`);
    expect(before.status).toBe(200);
    expect(before.body).toEqual([]);

    // Ids issued by the services stay below 2^53: this one cannot exist.
    const response = await api('POST', '/v1/pets', { body: { name, categoryId: 9_007_199_254_740_991 } });
    expectError(response, 422, 'UNKNOWN_CATEGORY');
    expect(response.headers.get('location')).toBeNull();

    const deleted = await createCategory();
    expect((await api('DELETE', `/v1/categories/${deleted.id}`)).status).toBe(204);
    expectError(await api('POST', '/v1/pets', { body: { name, categoryId: deleted.id } }), 422, 'UNKNOWN_CATEGORY');

    const after = await api('GET', `/v1/pets?name=${encodeURIComponent(name)}`);
    expect(after.status).toBe(200);
    expect(after.body).toEqual([]);
  });
});

describe('GET /v1/pets/{petId} (deprecated)', () => {
  it('answers the Pet with Deprecation, Sunset and the successor Link', async () => {
    const pet = await createPet();
    const response = await api('GET', `/v1/pets/${pet.id}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual(pet);
    expectDeprecated(response, pet.id);
  });

  it('carries the same headers on its errors: 404, 400 and 401', async () => {
    const notFound = await api('GET', `/v1/pets/${INT64_MAX}`);
    expectError(notFound, 404, 'PET_NOT_FOUND');
    expectDeprecated(notFound, INT64_MAX);

    const malformed = await api('GET', '/v1/pets/abc');
    expectError(malformed, 400, 'VALIDATION_FAILED');
    expectDeprecated(malformed, 'abc');

    const pet = await createPet();
    const unauthenticated = await api('GET', `/v1/pets/${pet.id}`, { headers: { authorization: undefined } });
    expectError(unauthenticated, 401, 'UNAUTHORIZED');
    expectDeprecated(unauthenticated, pet.id);
  });

  it('is the only operation with those headers', async () => {
    const pet = await createPet();
    for (const response of [await api('GET', `/v2/pets/${pet.id}`), await api('GET', `/v1/pets?categoryId=${pet.categoryId}`)]) {
      expect(response.status).toBe(200);
      expect(response.headers.get('deprecation')).toBeNull();
      expect(response.headers.get('sunset')).toBeNull();
    }
  });
});

describe('GET /v2/pets/{petId}', () => {
  it('answers PetDetails: the Pet, its category and its inventory entry once it exists', async () => {
    const category = await createCategory();
    const pet = await createPet({ categoryId: category.id });

    const details = await eventually(
      () => api('GET', `/v2/pets/${pet.id}`),
      (r) => r.status === 200 && r.body.inventory !== null,
    );
    // A new pet's entry has no stock and the pet's status (API.md §7).
    expect(details.body).toEqual({ ...pet, category, inventory: { quantity: 0, status: 'available' } });
    expect(details.headers.get('deprecation')).toBeNull();
  });

  it('answers inventory null or the entry, never anything else, right after the create', async () => {
    const pet = await createPet();
    const details = await api('GET', `/v2/pets/${pet.id}`);
    expect(details.status).toBe(200);
    expect([null, { quantity: 0, status: 'available' }]).toContainEqual(details.body.inventory);
  });

  it('answers 404 PET_NOT_FOUND for an id that does not exist', async () => {
    expectError(await api('GET', `/v2/pets/${INT64_MAX}`), 404, 'PET_NOT_FOUND');
  });
});

describe('PUT /v1/pets/{petId}', () => {
  it('replaces the whole pet: an omitted status becomes available', async () => {
    const pet = await createPet({ status: 'sold' });
    const otherCategory = await createCategory();
    const name = uniqueName('Renamed');

    const response = await api('PUT', `/v1/pets/${pet.id}`, { body: { name, categoryId: otherCategory.id } });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ id: pet.id, name, categoryId: otherCategory.id, status: 'available' });
    expect((await api('GET', `/v1/pets/${pet.id}`)).body).toEqual(response.body);

    const withStatus = await api('PUT', `/v1/pets/${pet.id}`, { body: { name, categoryId: otherCategory.id, status: 'pending' } });
    expect(withStatus.status).toBe(200);
    expect(withStatus.body.status).toBe('pending');
  });

  it('needs the whole NewPet', async () => {
    const pet = await createPet();
    const response = await api('PUT', `/v1/pets/${pet.id}`, { body: { name: uniqueName('Half') } });
    expectError(response, 400, 'VALIDATION_FAILED');
    expect(detailFields(response)).toContain('categoryId');
    expect((await api('GET', `/v1/pets/${pet.id}`)).body).toEqual(pet);
  });

  it('answers 404 for a pet that does not exist and 422 for an unknown category', async () => {
    const pet = await createPet();
    expectError(
      await api('PUT', `/v1/pets/${INT64_MAX}`, { body: { name: uniqueName('Nobody'), categoryId: pet.categoryId } }),
      404,
      'PET_NOT_FOUND',
    );
    expectError(
      await api('PUT', `/v1/pets/${pet.id}`, { body: { name: uniqueName('Lost'), categoryId: 9_007_199_254_740_991 } }),
      422,
      'UNKNOWN_CATEGORY',
    );
    expect((await api('GET', `/v1/pets/${pet.id}`)).body).toEqual(pet);
  });
});

describe('PATCH /v1/pets/{petId}', () => {
  it.each(['application/json', 'application/merge-patch+json'])('changes only the fields sent, as %s', async (contentType) => {
    const pet = await createPet({ status: 'pending' });
    const headers = { 'content-type': contentType };

    const renamed = await api('PATCH', `/v1/pets/${pet.id}`, { body: { name: 'Patched' }, headers });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toEqual({ ...pet, name: 'Patched' });

    const category = await createCategory();
    const moved = await api('PATCH', `/v1/pets/${pet.id}`, { body: { categoryId: category.id, status: 'sold' }, headers });
    expect(moved.status).toBe(200);
    expect(moved.body).toEqual({ ...pet, name: 'Patched', categoryId: category.id, status: 'sold' });
    expect((await api('GET', `/v1/pets/${pet.id}`)).body).toEqual(moved.body);
  });

  it('refuses null (no removal) and an empty object with 400, changing nothing', async () => {
    const pet = await createPet();
    const mergePatch = { 'content-type': 'application/merge-patch+json' };
    const nulls: Array<[string, object]> = [
      ['status', { status: null }],
      ['name', { name: null }],
      ['categoryId', { name: 'Kept', categoryId: null }],
    ];
    for (const [field, body] of nulls) {
      const response = await api('PATCH', `/v1/pets/${pet.id}`, { body, headers: mergePatch });
      expectError(response, 400, 'VALIDATION_FAILED');
      expect(detailFields(response)).toEqual([field]);
    }
    for (const headers of [mergePatch, { 'content-type': 'application/json' }]) {
      expectError(await api('PATCH', `/v1/pets/${pet.id}`, { body: {}, headers }), 400, 'VALIDATION_FAILED');
    }
    expectError(await api('PATCH', `/v1/pets/${pet.id}`, { body: { id: pet.id + 1 } }), 400, 'VALIDATION_FAILED');
    expect((await api('GET', `/v1/pets/${pet.id}`)).body).toEqual(pet);
  });

  it('answers 404 for a pet that does not exist and 422 for an unknown category', async () => {
    const pet = await createPet();
    expectError(await api('PATCH', `/v1/pets/${INT64_MAX}`, { body: { status: 'sold' } }), 404, 'PET_NOT_FOUND');
    expectError(await api('PATCH', `/v1/pets/${pet.id}`, { body: { categoryId: 9_007_199_254_740_991 } }), 422, 'UNKNOWN_CATEGORY');
    expect((await api('GET', `/v1/pets/${pet.id}`)).body).toEqual(pet);
  });
});

describe('DELETE /v1/pets/{petId}', () => {
  it('answers 204 without a body, then the pet is gone: 404 PET_NOT_FOUND everywhere', async () => {
    const pet = await createPet();
    const response = await api('DELETE', `/v1/pets/${pet.id}`);
    expect(response.status).toBe(204);
    expect(response.text).toBe('');

    expectError(await api('GET', `/v1/pets/${pet.id}`), 404, 'PET_NOT_FOUND');
    expectError(await api('GET', `/v2/pets/${pet.id}`), 404, 'PET_NOT_FOUND');
    expectError(await api('DELETE', `/v1/pets/${pet.id}`), 404, 'PET_NOT_FOUND');
    expectError(await api('PATCH', `/v1/pets/${pet.id}`, { body: { status: 'sold' } }), 404, 'PET_NOT_FOUND');
    expect((await petsOf(pet.categoryId)).body).toEqual([]);
  });

  it('takes its inventory entry too', async () => {
    const pet = await createPet();
    await eventually(
      () => api('GET', `/v1/store/inventory/${pet.id}`),
      (r) => r.status === 200,
    );
    expect((await api('DELETE', `/v1/pets/${pet.id}`)).status).toBe(204);
    const gone = await eventually(
      () => api('GET', `/v1/store/inventory/${pet.id}`),
      (r) => r.status === 404,
    );
    expectError(gone, 404, 'INVENTORY_ITEM_NOT_FOUND');
  });
});

describe('GET /v1/pets', () => {
  it('filters by status (repeatable), categoryId and name (case-insensitive substring)', async () => {
    const category = await createCategory();
    const token = uniqueName('Zq').replace(' ', '');
    const available = await createPet({ categoryId: category.id, name: `Big ${token} dog` });
    const pending = await createPet({ categoryId: category.id, name: `small ${token.toUpperCase()}`, status: 'pending' });
    const sold = await createPet({ categoryId: category.id, name: 'Unrelated', status: 'sold' });
    const elsewhere = await createPet({ name: `Other ${token}`, status: 'pending' });

    expect((await petsOf(category.id)).body).toEqual([available, pending, sold]);
    expect((await petsOf(category.id, '&status=pending')).body).toEqual([pending]);
    expect((await petsOf(category.id, '&status=pending&status=sold')).body).toEqual([pending, sold]);
    expect((await petsOf(category.id, '&status=sold&status=available')).body).toEqual([available, sold]);

    const byName = await api('GET', `/v1/pets?name=${token.toLowerCase()}`);
    expect(byName.status).toBe(200);
    expect(byName.body).toEqual([available, pending, elsewhere]);
    expect((await api('GET', `/v1/pets?name=${token.slice(1, -1).toUpperCase()}`)).body).toEqual([available, pending, elsewhere]);
    expect((await api('GET', `/v1/pets?name=${token}&status=pending`)).body).toEqual([pending, elsewhere]);
    expect((await petsOf(category.id, `&name=${token}&status=pending`)).body).toEqual([pending]);
    expect((await petsOf(category.id, `&name=${token}&status=sold`)).body).toEqual([]);
  });

  it('takes the name as text: % and _ are no wildcards', async () => {
    const category = await createCategory();
    const percent = await createPet({ categoryId: category.id, name: '100% good boy' });
    const underscore = await createPet({ categoryId: category.id, name: 'snake_case' });
    await createPet({ categoryId: category.id, name: 'plain name' });

    expect((await petsOf(category.id, `&name=${encodeURIComponent('%')}`)).body).toEqual([percent]);
    expect((await petsOf(category.id, '&name=_')).body).toEqual([underscore]);
  });

  it('answers an empty list for a category that does not exist', async () => {
    const response = await api('GET', `/v1/pets?categoryId=${INT64_MAX}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual([]);
    expect(response.headers.get('link')).toBeNull();
  });

  it('pages by following Link rel="next" until it is absent, in id order, keeping the filters', async () => {
    const category = await createCategory();
    const pets: Array<Awaited<ReturnType<typeof createPet>>> = [];
    for (let i = 0; i < 5; i += 1) pets.push(await createPet({ categoryId: category.id, status: i === 2 ? 'sold' : 'available' }));

    const pages = await allPages(`/v1/pets?categoryId=${category.id}&limit=2`);
    expect(pages.map((page) => page.body)).toEqual([pets.slice(0, 2), pets.slice(2, 4), pets.slice(4)]);

    // Exactly `limit` left: no next link, no empty page.
    const exact = await allPages(`/v1/pets?categoryId=${category.id}&limit=5`);
    expect(exact.map((page) => page.body)).toEqual([pets]);
    const fourThenOne = await allPages(`/v1/pets?limit=4&categoryId=${category.id}`);
    expect(fourThenOne.map((page) => page.body)).toEqual([pets.slice(0, 4), pets.slice(4)]);

    const filtered = await allPages(`/v1/pets?categoryId=${category.id}&status=available&limit=1`);
    expect(filtered.map((page) => page.body)).toEqual([0, 1, 3, 4].map((i) => [pets[i]]));

    // @petstore/client follows the same links, one page at a time, keeping the filters.
    const listed: unknown[] = [];
    for await (const pet of petstore().listPets({ categoryId: category.id, status: ['available'], limit: 1 })) listed.push(pet);
    expect(listed).toEqual([0, 1, 3, 4].map((i) => pets[i]));

    // `after` is an id cursor: 0 is the start, the last id seen continues.
    expect((await petsOf(category.id, '&after=0')).body).toEqual(pets);
    expect((await petsOf(category.id, `&after=${pets[2].id}`)).body).toEqual(pets.slice(3));
  });

  it('answers 20 items by default', async () => {
    const category = await createCategory();
    const pets: Array<Awaited<ReturnType<typeof createPet>>> = [];
    for (let i = 0; i < 21; i += 1) pets.push(await createPet({ categoryId: category.id }));
    const pages = await allPages(`/v1/pets?categoryId=${category.id}`);
    expect(pages.map((page) => page.body)).toEqual([pets.slice(0, 20), pets.slice(20)]);
  });

  it('takes limit 1 to 100 and refuses 0, 101 and a negative after', async () => {
    const category = await createCategory();
    for (const limit of [1, 100]) expect((await api('GET', `/v1/pets?categoryId=${category.id}&limit=${limit}`)).status).toBe(200);
    for (const query of ['limit=0', 'limit=101', 'limit=abc', 'limit=1.5', 'after=-1', 'after=x']) {
      const response = await api('GET', `/v1/pets?${query}`);
      expectError(response, 400, 'VALIDATION_FAILED');
      expectDetailsAbout(response, query.split('=')[0]);
    }
  });

  it('refuses an unknown query parameter and bad filter values with 400', async () => {
    for (const query of ['sort=name', 'status=lost', 'categoryId=0', 'categoryId=-1', 'categoryId=abc']) {
      const response = await api('GET', `/v1/pets?${query}`);
      expectError(response, 400, 'VALIDATION_FAILED');
      expectDetailsAbout(response, query.split('=')[0]);
    }
  });
});

describe('path ids', () => {
  const operations: Array<[string, (id: string) => string, unknown?]> = [
    ['GET', (id) => `/v1/pets/${id}`],
    ['GET', (id) => `/v2/pets/${id}`],
    ['PUT', (id) => `/v1/pets/${id}`, { name: 'Any', categoryId: 1 }],
    ['PATCH', (id) => `/v1/pets/${id}`, { status: 'sold' }],
    ['DELETE', (id) => `/v1/pets/${id}`],
  ];

  it.each(['abc', '0', '-1', '9223372036854775808', '1.5', '1e3'])('refuses %s with 400 VALIDATION_FAILED', async (id) => {
    for (const [method, path, body] of operations) {
      const response = await api(method, path(id), { body });
      expectError(response, 400, 'VALIDATION_FAILED');
      expect(detailFields(response)).toEqual(['petId']);
    }
  });

  it('takes 9223372036854775807 as well-formed: 404 PET_NOT_FOUND', async () => {
    const category = await createCategory();
    for (const [method, path, body] of operations) {
      const withCategory = body && 'categoryId' in (body as object) ? { ...(body as object), categoryId: category.id } : body;
      expectError(await api(method, path(INT64_MAX), { body: withCategory }), 404, 'PET_NOT_FOUND');
    }
  });
});
