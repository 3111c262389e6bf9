import { api, stackState } from '../support/stack';
import { createCategory, detailFields, expectError, uniqueName, type ApiResponse } from '../support/fixtures';

// A 500 INTERNAL_ERROR cannot be provoked from outside a healthy stack; `expectError` checks on
// every error here that no stack trace or SQL leaks, and the gateway's own tests cover the 500.

/** A string of exactly `codePoints` Unicode code points, unique, padded with a character outside the BMP. */
function withCodePoints(codePoints: number, padding = '🐶'): string {
  const prefix = uniqueName('E').replace(' ', '');
  return prefix + padding.repeat(codePoints - prefix.length);
}

async function petsIn(categoryId: number): Promise<unknown[]> {
  const response = await api('GET', `/v1/pets?categoryId=${categoryId}`);
  expect(response.status).toBe(200);
  return response.body;
}

/** Categories created after `marker`: the e2e files run one at a time, so only this test's. */
async function categoriesAfter(marker: { id: number }): Promise<unknown[]> {
  const response = await api('GET', `/v1/categories?after=${marker.id}`);
  expect(response.status).toBe(200);
  return response.body;
}

function expectValidationFailed(response: ApiResponse, field: string): void {
  expectError(response, 400, 'VALIDATION_FAILED');
  expect(detailFields(response)).toContain(field);
}

/** A request whose body `api` cannot express: bytes, or no Content-Type at all. */
async function send(method: string, path: string, body: Blob | Uint8Array, headers: Record<string, string> = {}): Promise<ApiResponse> {
  const state = stackState();
  const response = await fetch(`${state.gatewayUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${state.apiKey}`, ...headers },
    body,
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: the assertions on it will say so
  }
  return { status: response.status, headers: response.headers, body: parsed, text };
}

describe('INVALID_JSON', () => {
  it('refuses a body that does not parse, whatever the operation, and writes nothing', async () => {
    const category = await createCategory();
    for (const rawBody of [`{"name": "Rex", "categoryId": ${category.id}`, "{'name': 'Rex'}", `{"name": "Rex",}`, 'undefined']) {
      const response = await api('POST', '/v1/pets', { rawBody, headers: { 'content-type': 'application/json' } });
      expectError(response, 400, 'INVALID_JSON');
    }
    const pet = (await api('POST', '/v1/pets', { body: { name: uniqueName('Rex'), categoryId: category.id } })).body;
    const patch = await api('PATCH', `/v1/pets/${pet.id}`, {
      rawBody: '{"status": "sold"',
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expectError(patch, 400, 'INVALID_JSON');

    // JSON is UTF-8 (RFC 8259): a Latin-1 "é" is no JSON text.
    const latin1 = Buffer.concat([Buffer.from(`{"name": "Caf`), Buffer.from([0xe9]), Buffer.from(`", "categoryId": ${category.id}}`)]);
    expectError(await send('POST', '/v1/pets', latin1, { 'content-type': 'application/json' }), 400, 'INVALID_JSON');
    expect(await petsIn(category.id)).toEqual([pet]);
  });
});

describe('UNSUPPORTED_CONTENT_TYPE', () => {
  it('refuses a body that is not JSON by its content type', async () => {
    const category = await createCategory();
    const json = JSON.stringify({ name: uniqueName('Rex'), categoryId: category.id });
    for (const contentType of ['text/plain', 'text/plain; charset=utf-8', 'application/xml', 'application/x-www-form-urlencoded']) {
      const response = await api('POST', '/v1/pets', { rawBody: json, headers: { 'content-type': contentType } });
      expectError(response, 400, 'UNSUPPORTED_CONTENT_TYPE');
    }
    const untyped = await send('POST', '/v1/pets', new Blob([json]));
    expectError(untyped, 400, 'UNSUPPORTED_CONTENT_TYPE');
    expect(await petsIn(category.id)).toEqual([]);
  });

  it('takes application/json and application/*+json in any charset', async () => {
    const category = await createCategory();
    for (const contentType of ['application/json; charset=utf-8', 'application/json;charset=UTF-8', 'application/vnd.petstore+json']) {
      const name = uniqueName('Rex');
      const response = await api('POST', '/v1/pets', { body: { name, categoryId: category.id }, headers: { 'content-type': contentType } });
      expect({ contentType, status: response.status }).toEqual({ contentType, status: 201 });
      expect(response.body.name).toBe(name);
    }
    const [pet] = (await petsIn(category.id)) as Array<{ id: number }>;
    const patched = await api('PATCH', `/v1/pets/${pet.id}`, {
      body: { status: 'sold' },
      headers: { 'content-type': 'application/merge-patch+json; charset=utf-8' },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.status).toBe('sold');
  });
});

describe('VALIDATION_FAILED', () => {
  it('names the field of every broken pet bound in details, and creates nothing', async () => {
    const category = await createCategory();
    const categoryId = category.id;
    const cases: Array<[string, unknown, string]> = [
      ['empty name', { name: '', categoryId }, 'name'],
      ['blank name', { name: ' \t  ', categoryId }, 'name'],
      ['name of 101 characters', { name: 'a'.repeat(101), categoryId }, 'name'],
      ['name of 101 code points outside the BMP', { name: withCodePoints(101), categoryId }, 'name'],
      ['name not a string', { name: 5, categoryId }, 'name'],
      ['name missing', { categoryId }, 'name'],
      ['name null', { name: null, categoryId }, 'name'],
      ['categoryId as a string', { name: 'Rex', categoryId: String(categoryId) }, 'categoryId'],
      ['categoryId not an integer', { name: 'Rex', categoryId: 1.5 }, 'categoryId'],
      ['categoryId 0', { name: 'Rex', categoryId: 0 }, 'categoryId'],
      ['categoryId negative', { name: 'Rex', categoryId: -1 }, 'categoryId'],
      ['categoryId missing', { name: 'Rex' }, 'categoryId'],
      ['status not a PetStatus', { name: 'Rex', categoryId, status: 'lost' }, 'status'],
      ['status of another case', { name: 'Rex', categoryId, status: 'Available' }, 'status'],
      ['status null', { name: 'Rex', categoryId, status: null }, 'status'],
      ['unknown field', { name: 'Rex', categoryId, colour: 'brown' }, 'colour'],
      ['read-only id', { id: 12, name: 'Rex', categoryId }, 'id'],
    ];
    for (const [, body, field] of cases) {
      expectValidationFailed(await api('POST', '/v1/pets', { body }), field);
    }

    // A categoryId beyond int64 is no id, whatever JSON makes of it.
    const huge = await api('POST', '/v1/pets', {
      rawBody: '{"name": "Rex", "categoryId": 18446744073709551616}',
      headers: { 'content-type': 'application/json' },
    });
    expectValidationFailed(huge, 'categoryId');

    for (const rawBody of ['[]', '"Rex"', '42', 'null']) {
      const response = await api('POST', '/v1/pets', { rawBody, headers: { 'content-type': 'application/json' } });
      expectError(response, 400, 'VALIDATION_FAILED');
    }
    expectError(await api('POST', '/v1/pets', { headers: { 'content-type': 'application/json' } }), 400, 'VALIDATION_FAILED');

    const several = await api('POST', '/v1/pets', { body: { name: '', categoryId: 'x', colour: 1 } });
    expectError(several, 400, 'VALIDATION_FAILED');
    expect(detailFields(several)).toEqual(expect.arrayContaining(['name', 'categoryId', 'colour']));

    expect(await petsIn(category.id)).toEqual([]);
  });

  it('takes names of 1 and of 100 code points, counting characters outside the BMP once', async () => {
    const category = await createCategory();
    for (const name of ['x', 'a'.repeat(92) + uniqueName('').trim(), withCodePoints(100), ` ${uniqueName('Spaced')} `]) {
      const response = await api('POST', '/v1/pets', { body: { name, categoryId: category.id } });
      expect({ codePoints: [...name].length, status: response.status }).toEqual({ codePoints: [...name].length, status: 201 });
      expect(response.body.name).toBe(name);
      expect((await api('GET', `/v1/pets/${response.body.id}`)).body.name).toBe(name);
    }
  });

  it('applies the same pet bounds on PUT and PATCH', async () => {
    const category = await createCategory();
    const pet = (await api('POST', '/v1/pets', { body: { name: uniqueName('Rex'), categoryId: category.id } })).body;
    expectValidationFailed(await api('PUT', `/v1/pets/${pet.id}`, { body: { name: withCodePoints(101), categoryId: category.id } }), 'name');
    expectValidationFailed(await api('PUT', `/v1/pets/${pet.id}`, { body: { ...pet } }), 'id');
    expectValidationFailed(await api('PATCH', `/v1/pets/${pet.id}`, { body: { name: '  ' } }), 'name');
    expectValidationFailed(await api('PATCH', `/v1/pets/${pet.id}`, { body: { status: 'lost' } }), 'status');
    expectValidationFailed(await api('PATCH', `/v1/pets/${pet.id}`, { body: { colour: 'brown' } }), 'colour');
    expect((await api('GET', `/v1/pets/${pet.id}`)).body).toEqual(pet);
  });

  it('names the field of every broken category bound in details, and creates nothing', async () => {
    const marker = await createCategory();
    const cases: Array<[unknown, string]> = [
      [{ name: '' }, 'name'],
      [{ name: '   ' }, 'name'],
      [{ name: 'c'.repeat(51) }, 'name'],
      [{ name: withCodePoints(51, '🐱') }, 'name'],
      [{ name: 7 }, 'name'],
      [{}, 'name'],
      [{ name: uniqueName('Birds'), description: 'd'.repeat(501) }, 'description'],
      [{ name: uniqueName('Birds'), description: '🐦'.repeat(501) }, 'description'],
      [{ name: uniqueName('Birds'), description: 5 }, 'description'],
      [{ name: uniqueName('Birds'), description: null }, 'description'],
      [{ name: uniqueName('Birds'), kind: 'bird' }, 'kind'],
      [{ id: marker.id + 1, name: uniqueName('Birds') }, 'id'],
    ];
    for (const [body, field] of cases) {
      expectValidationFailed(await api('POST', '/v1/categories', { body }), field);
    }
    expectValidationFailed(await api('PUT', `/v1/categories/${marker.id}`, { body: { name: 'c'.repeat(51) } }), 'name');
    expect(await categoriesAfter(marker)).toEqual([]);
    expect((await api('GET', `/v1/categories/${marker.id}`)).body).toEqual(marker);

    const longest = { name: withCodePoints(50, '🐱'), description: '🐦'.repeat(500) };
    const accepted = await api('POST', '/v1/categories', { body: longest });
    expect(accepted.status).toBe(201);
    expect(accepted.body).toEqual({ id: expect.any(Number), ...longest });
    // The e2e databases start empty on every run: nobody else takes this name.
    const shortest = await api('POST', '/v1/categories', { body: { name: 'Z' } });
    expect(shortest.status).toBe(201);
  });
});

describe('the form before the state of the resource', () => {
  it('answers 400 rather than 404 or 422 when the request itself is wrong', async () => {
    const category = await createCategory();
    expectValidationFailed(await api('PUT', '/v1/pets/9223372036854775807', { body: { name: '', categoryId: category.id } }), 'name');
    expectValidationFailed(await api('POST', '/v1/pets', { body: { name: '', categoryId: 9_007_199_254_740_991 } }), 'name');
    expectValidationFailed(await api('PUT', '/v1/categories/9223372036854775807', { body: { name: ' ' } }), 'name');
    expectValidationFailed(await api('DELETE', '/v1/pets/9223372036854775807?cascade=true'), 'cascade');
    expect(await petsIn(category.id)).toEqual([]);
  });

  it('refuses an id of 2^53 or more in a body with 400 naming the field, never another id', async () => {
    for (const id of ['9007199254740993', '9223372036854775806', '9223372036854775807']) {
      const response = await api('POST', '/v1/pets', {
        rawBody: `{"name": "${uniqueName('Rex')}", "categoryId": ${id}}`,
        headers: { 'content-type': 'application/json' },
      });
      expectValidationFailed(response, 'categoryId');
      expect(response.body.message).not.toMatch(/9007199254740992/);
    }
  });

  it('refuses unknown query parameters on every operation, and a repeated single-valued one', async () => {
    const category = await createCategory();
    const pet = (await api('POST', '/v1/pets', { body: { name: uniqueName('Rex'), categoryId: category.id } })).body;
    const requests: Array<[string, string, unknown, string]> = [
      ['GET', `/v1/pets/${pet.id}?expand=category`, undefined, 'expand'],
      ['GET', `/v2/pets/${pet.id}?verbose=true`, undefined, 'verbose'],
      ['POST', '/v1/pets?dryRun=true', { name: uniqueName('Rex'), categoryId: category.id }, 'dryRun'],
      ['PATCH', `/v1/pets/${pet.id}?force=1`, { status: 'sold' }, 'force'],
      ['DELETE', `/v1/pets/${pet.id}?soft=true`, undefined, 'soft'],
      ['GET', `/v1/categories/${category.id}?x=1`, undefined, 'x'],
      ['GET', '/v1/pets?limit=1&limit=2', undefined, 'limit'],
      ['GET', `/v1/pets?categoryId=${category.id}&categoryId=${category.id}`, undefined, 'categoryId'],
    ];
    for (const [method, path, body, field] of requests) {
      expectValidationFailed(await api(method, path, { body }), field);
    }
    expect(await petsIn(category.id)).toEqual([pet]);
  });
});

describe('UNAUTHORIZED', () => {
  const refused: Array<[string, string | undefined]> = [
    ['missing', undefined],
    ['Basic', 'Basic ZGV2OmRldi1rZXktMDEyMzQ1Njc4OQ=='],
    ['the key without a scheme', 'dev-key-0123456789'],
    ['an empty Bearer', 'Bearer '],
    ['an unknown key', 'Bearer unknown-key-0123456789'],
    ['a longer key', 'Bearer dev-key-0123456789x'],
  ];

  it.each(refused)('answers 401 with WWW-Authenticate: Bearer when Authorization is %s', async (_, authorization) => {
    const response = await api('GET', '/v1/pets', { headers: { authorization } });
    expectError(response, 401, 'UNAUTHORIZED');
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer\b/);
  });

  it('authenticates before anything else: form, size, route and method', async () => {
    const category = await createCategory();
    const noKey = { authorization: undefined };
    const requests: Array<[string, string, Parameters<typeof api>[2]]> = [
      ['POST', '/v1/pets', { body: { name: '', categoryId: category.id }, headers: noKey }],
      ['POST', '/v1/pets', { rawBody: '{', headers: { ...noKey, 'content-type': 'application/json' } }],
      ['POST', '/v1/pets', { rawBody: 'x'.repeat(70_000), headers: { ...noKey, 'content-type': 'application/json' } }],
      ['GET', '/v1/pets/abc', { headers: noKey }],
      ['GET', '/v1/nothing-here', { headers: noKey }],
      ['GET', '/nothing-here', { headers: noKey }],
      ['DELETE', '/v1/pets', { headers: noKey }],
      ['POST', '/v1/pets', { body: { name: uniqueName('Rex'), categoryId: category.id }, headers: { authorization: 'Bearer nope' } }],
    ];
    for (const [method, path, options] of requests) {
      const response = await api(method, path, options);
      expectError(response, 401, 'UNAUTHORIZED');
      expect(response.headers.get('www-authenticate')).toMatch(/^Bearer\b/);
    }
    expect(await petsIn(category.id)).toEqual([]);
  });
});

describe('NOT_FOUND and METHOD_NOT_ALLOWED', () => {
  it.each(['/v1/nothing-here', '/v3/pets', '/nothing-here', '/v1/pets/1/photos', '/v1/store', '/v1'])(
    'answers 404 NOT_FOUND for %s after authentication',
    async (path) => {
      expectError(await api('GET', path), 404, 'NOT_FOUND');
      expectError(await api('GET', path, { headers: { authorization: undefined } }), 401, 'UNAUTHORIZED');
    },
  );

  it('answers every error as the Error object, outside the API too', async () => {
    expectError(await api('GET', '/docs/no-such-file.js'), 404, 'NOT_FOUND');
    // Percent-encoding that decodes to no UTF-8 text.
    expectError(await api('GET', '/v1/pets/%E0%A4%A'), 400, 'VALIDATION_FAILED');
  });

  it('answers 405 with Allow for a known path and a method it does not serve', async () => {
    const category = await createCategory();
    const cases: Array<[string, string, string[]]> = [
      ['DELETE', '/v1/pets', ['GET', 'POST']],
      ['PUT', '/v1/pets', ['GET', 'POST']],
      ['POST', `/v1/pets/${category.id}`, ['GET', 'PUT', 'PATCH', 'DELETE']],
      ['PATCH', `/v1/categories/${category.id}`, ['GET', 'PUT', 'DELETE']],
      ['DELETE', '/v1/categories', ['GET', 'POST']],
      ['POST', `/v2/pets/${category.id}`, ['GET']],
      ['DELETE', '/v1/store/orders', ['GET', 'POST']],
    ];
    for (const [method, path, allowed] of cases) {
      const response = await api(method, path);
      expectError(response, 405, 'METHOD_NOT_ALLOWED');
      const allow = (response.headers.get('allow') ?? '').split(',').map((m) => m.trim());
      expect(allow).toEqual(expect.arrayContaining(allowed));
      expect(allow).not.toContain(method);
    }
    expect((await api('GET', `/v1/categories/${category.id}`)).status).toBe(200);
  });
});

describe('PAYLOAD_TOO_LARGE', () => {
  it('refuses a body over 64 KiB before looking at its form, and writes nothing', async () => {
    const category = await createCategory();
    const big = JSON.stringify({ name: 'a'.repeat(66 * 1024), categoryId: category.id });
    expectError(await api('POST', '/v1/pets', { rawBody: big, headers: { 'content-type': 'application/json' } }), 413, 'PAYLOAD_TOO_LARGE');
    expectError(await api('POST', '/v1/pets', { rawBody: big, headers: { 'content-type': 'text/plain' } }), 413, 'PAYLOAD_TOO_LARGE');
    expectError(await api('POST', '/v1/pets', { rawBody: `{${big}`, headers: { 'content-type': 'application/json' } }), 413, 'PAYLOAD_TOO_LARGE');
    const bigCategory = JSON.stringify({ name: uniqueName('Big'), description: 'd'.repeat(65 * 1024) });
    expectError(
      await api('PUT', `/v1/categories/${category.id}`, { rawBody: bigCategory, headers: { 'content-type': 'application/json' } }),
      413,
      'PAYLOAD_TOO_LARGE',
    );

    // Just under the limit, the same kind of body is judged by its form.
    const underLimit = JSON.stringify({ name: uniqueName('Big'), description: 'd'.repeat(60 * 1024) });
    expectValidationFailed(await api('POST', '/v1/categories', { rawBody: underLimit, headers: { 'content-type': 'application/json' } }), 'description');

    expect(await petsIn(category.id)).toEqual([]);
    expect((await api('GET', `/v1/categories/${category.id}`)).body).toEqual(category);
  });
});

describe('X-Request-Id', () => {
  const FORMED = /^[A-Za-z0-9._:-]{1,128}$/;

  it('echoes a well-formed client id on successes and errors alike, and in the Error body', async () => {
    const id = `e2e-${uniqueName('req').replace(' ', '_')}.1:2`;
    const requests: Array<[string, string, Parameters<typeof api>[2]]> = [
      ['GET', '/v1/pets?limit=1', {}],
      ['GET', '/v1/pets/9223372036854775807', {}],
      ['GET', '/v1/pets?limit=0', {}],
      ['GET', '/v1/pets', { headers: { authorization: undefined } }],
      ['DELETE', '/v1/pets', {}],
      ['GET', '/nothing-here', {}],
      ['GET', '/openapi.json', { headers: { authorization: undefined } }],
      ['GET', '/health/live', { headers: { authorization: undefined } }],
      ['GET', '/docs', { headers: { authorization: undefined } }],
      ['POST', '/v1/categories', { body: { name: uniqueName('Req') } }],
      ['POST', '/v1/pets', { rawBody: 'x'.repeat(70_000), headers: { 'content-type': 'application/json' } }],
    ];
    for (const [method, path, options] of requests) {
      const response = await api(method, path, { ...options, headers: { ...options?.headers, 'x-request-id': id } });
      expect({ path, id: response.headers.get('x-request-id') }).toEqual({ path, id });
      if (response.status >= 400) expect(response.body.requestId).toBe(id);
    }
    const created = await createCategory();
    const deleted = await api('DELETE', `/v1/categories/${created.id}`, { headers: { 'x-request-id': id } });
    expect(deleted.status).toBe(204);
    expect(deleted.headers.get('x-request-id')).toBe(id);

    const longest = 'A'.repeat(64) + '0123456789._:-'.repeat(4) + 'z'.repeat(8);
    expect(longest).toHaveLength(128);
    expect((await api('GET', '/v1/pets?limit=1', { headers: { 'x-request-id': longest } })).headers.get('x-request-id')).toBe(longest);
  });

  it.each([
    ['129 characters', 'a'.repeat(129)],
    ['a space', 'my request'],
    ['a slash', 'a/b'],
    ['a semicolon', 'a;b'],
    ['a comma', 'a,b'],
    ['empty', ''],
  ])('replaces a client id with %s by a new one', async (_, id) => {
    const response = await api('GET', '/v1/pets/9223372036854775807', { headers: { 'x-request-id': id } });
    const given = response.headers.get('x-request-id');
    expect(given).toMatch(FORMED);
    expect(given).not.toBe(id);
    expectError(response, 404, 'PET_NOT_FOUND');
  });

  it('gives every response a new id when the client sends none', async () => {
    const ids = new Set<string | null>();
    for (let i = 0; i < 3; i += 1) {
      for (const path of ['/v1/pets?limit=1', '/v1/pets/abc']) ids.add((await api('GET', path)).headers.get('x-request-id'));
    }
    expect(ids.size).toBe(6);
    for (const id of ids) expect(id).toMatch(FORMED);
  });
});
