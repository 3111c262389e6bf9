import { api, stackState } from '../support/stack';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed JSON, walked by path
type Json = Record<string, any>;

/** Every operation of API.md §2: method, path, tag, success status. */
const OPERATIONS: Array<[string, string, 'Pets' | 'Store', number]> = [
  ['get', '/v1/pets', 'Pets', 200],
  ['post', '/v1/pets', 'Pets', 201],
  ['get', '/v1/pets/{petId}', 'Pets', 200],
  ['put', '/v1/pets/{petId}', 'Pets', 200],
  ['patch', '/v1/pets/{petId}', 'Pets', 200],
  ['delete', '/v1/pets/{petId}', 'Pets', 204],
  ['get', '/v2/pets/{petId}', 'Pets', 200],
  ['get', '/v1/categories', 'Pets', 200],
  ['post', '/v1/categories', 'Pets', 201],
  ['get', '/v1/categories/{categoryId}', 'Pets', 200],
  ['put', '/v1/categories/{categoryId}', 'Pets', 200],
  ['delete', '/v1/categories/{categoryId}', 'Pets', 204],
  ['post', '/v1/store/orders', 'Store', 201],
  ['get', '/v1/store/orders', 'Store', 200],
  ['get', '/v1/store/orders/{orderId}', 'Store', 200],
  ['patch', '/v1/store/orders/{orderId}', 'Store', 200],
  ['post', '/v1/store/orders/{orderId}/cancel', 'Store', 200],
  ['get', '/v1/store/inventory', 'Store', 200],
  ['get', '/v1/store/inventory/{petId}', 'Store', 200],
  ['put', '/v1/store/inventory/{petId}', 'Store', 200],
];

/** Error statuses each operation can answer with, from API.md §4 and §2. */
const ERRORS: Record<string, number[]> = {
  'post /v1/pets': [400, 401, 403, 413, 422, 503],
  'get /v1/pets/{petId}': [400, 401, 403, 404, 410, 503],
  'put /v1/pets/{petId}': [400, 401, 403, 404, 413, 422],
  'patch /v1/pets/{petId}': [400, 401, 403, 404, 413, 422],
  'delete /v1/pets/{petId}': [400, 401, 403, 404],
  'get /v2/pets/{petId}': [400, 401, 403, 404],
  'post /v1/categories': [400, 401, 403, 409, 413],
  'get /v1/categories/{categoryId}': [400, 401, 403, 404],
  'put /v1/categories/{categoryId}': [400, 401, 403, 404, 409],
  'delete /v1/categories/{categoryId}': [400, 401, 403, 404, 409],
  'post /v1/store/orders': [400, 401, 403, 409, 413, 422],
  'patch /v1/store/orders/{orderId}': [400, 404, 409],
  'post /v1/store/orders/{orderId}/cancel': [404, 409],
  'get /v1/store/inventory/{petId}': [404],
  'put /v1/store/inventory/{petId}': [400, 404],
};

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

function operationsOf(document: Json): Array<[string, string, Json]> {
  return Object.entries(document.paths as Json).flatMap(([path, item]) =>
    Object.entries(item as Json)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, operation]): [string, string, Json] => [method, path, operation as Json]),
  );
}

function resolve(document: Json, node: Json | undefined): Json | undefined {
  if (node?.$ref === undefined) return node;
  const target = (node.$ref as string)
    .replace(/^#\//, '')
    .split('/')
    .reduce<Json | undefined>((at, key) => at?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], document);
  return resolve(document, target);
}

describe('GET /openapi.json', () => {
  let document: Json;

  beforeAll(async () => {
    const response = await api('GET', '/openapi.json', { headers: { authorization: undefined } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json\b/);
    document = response.body;
  });

  it('is OpenAPI 3.0.3, "Pet Store API" 1.0.0, with the tags Pets and Store', () => {
    expect(document.openapi).toBe('3.0.3');
    expect(document.info).toMatchObject({ title: 'Pet Store API', version: '1.0.0' });
    expect((document.tags as Json[]).map((tag) => tag.name)).toEqual(expect.arrayContaining(['Pets', 'Store']));
  });

  it('describes exactly the operations of the contract, each with its tag and success response', () => {
    const documented = operationsOf(document).map(([method, path]) => `${method} ${path}`);
    expect(documented.sort()).toEqual(OPERATIONS.map(([method, path]) => `${method} ${path}`).sort());
    for (const [method, path, tag, status] of OPERATIONS) {
      const operation = document.paths[path][method];
      expect({ operation: `${method} ${path}`, tags: operation.tags }).toEqual({ operation: `${method} ${path}`, tags: [tag] });
      expect({ operation: `${method} ${path}`, success: Object.keys(operation.responses).filter((s) => s.startsWith('2')) }).toEqual({
        operation: `${method} ${path}`,
        success: [String(status)],
      });
    }
  });

  it('applies the bearerAuth HTTP bearer scheme to every operation', () => {
    expect(resolve(document, document.components.securitySchemes.bearerAuth)).toMatchObject({ type: 'http', scheme: 'bearer' });
    for (const [method, path, operation] of operationsOf(document)) {
      const security = (operation.security ?? document.security) as Json[] | undefined;
      expect({ operation: `${method} ${path}`, bearer: security?.some((requirement) => 'bearerAuth' in requirement) }).toEqual({
        operation: `${method} ${path}`,
        bearer: true,
      });
    }
  });

  it('gives every operation a unique operationId and lists its errors with the Error schema', () => {
    const ids = operationsOf(document).map(([, , operation]) => operation.operationId);
    expect(ids.every((id) => typeof id === 'string' && id.length > 0)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);

    const errorSchema = document.components.schemas.Error;
    expect(errorSchema.required).toEqual(expect.arrayContaining(['code', 'message', 'status']));
    for (const [method, path, operation] of operationsOf(document)) {
      const name = `${method} ${path}`;
      const statuses = Object.keys(operation.responses).filter((status) => /^[45]/.test(status));
      // Every operation is behind the key and has a form: at least 400 and 401 (and 403 for the scopes).
      expect({ name, statuses }).toEqual({ name, statuses: expect.arrayContaining(['400', '401', '403', ...(ERRORS[name] ?? []).map(String)]) });
      for (const status of statuses) {
        const response = resolve(document, operation.responses[status]) as Json;
        const schema = resolve(document, response.content?.['application/json']?.schema);
        expect({ name, status, schema }).toEqual({ name, status, schema: errorSchema });
      }
    }
  });

  it('documents every error code of the contract in the Error schema', () => {
    const code = JSON.stringify(document.components.schemas.Error.properties.code);
    const codes = [
      'INVALID_JSON', 'UNSUPPORTED_CONTENT_TYPE', 'VALIDATION_FAILED', 'UNAUTHORIZED', 'FORBIDDEN', 'PET_NOT_FOUND',
      'CATEGORY_NOT_FOUND', 'ORDER_NOT_FOUND', 'INVENTORY_ITEM_NOT_FOUND', 'NOT_FOUND', 'METHOD_NOT_ALLOWED',
      'CATEGORY_NAME_TAKEN', 'CATEGORY_IN_USE', 'ORDER_NOT_APPROVED', 'ORDER_NOT_CANCELLABLE', 'IDEMPOTENCY_KEY_IN_USE',
      'ENDPOINT_SUNSET', 'PAYLOAD_TOO_LARGE', 'UNKNOWN_PET', 'UNKNOWN_CATEGORY', 'IDEMPOTENCY_KEY_REUSED', 'RATE_LIMITED',
      'INTERNAL_ERROR', 'SERVICE_UNAVAILABLE', 'UPSTREAM_TIMEOUT',
    ];
    expect(codes.filter((c) => !code.includes(c))).toEqual([]);
  });

  it('marks GET /v1/pets/{petId} deprecated with x-sunset, and only it', () => {
    const getPet = document.paths['/v1/pets/{petId}'].get;
    expect(getPet.deprecated).toBe(true);
    expect(Date.parse(getPet['x-sunset'])).toBe(Date.parse('2027-06-30T23:59:59Z'));
    const deprecated = operationsOf(document).filter(([, , operation]) => operation.deprecated === true);
    expect(deprecated.map(([method, path]) => `${method} ${path}`)).toEqual(['get /v1/pets/{petId}']);
  });

  it('marks the two beta operations with x-stability-level and leaves the others stable', () => {
    const levels = operationsOf(document)
      .filter(([, , operation]) => operation['x-stability-level'] !== undefined)
      .map(([method, path, operation]) => [`${method} ${path}`, operation['x-stability-level']]);
    expect(levels.sort()).toEqual(
      [
        ['get /v2/pets/{petId}', 'beta'],
        ['post /v1/store/orders/{orderId}/cancel', 'beta'],
      ].sort(),
    );
  });

  it('describes the shapes of the contract', () => {
    const schemas = document.components.schemas as Json;
    const properties = (name: string) => Object.keys(resolve(document, schemas[name])?.properties ?? {}).sort();
    expect(properties('Pet')).toEqual(['categoryId', 'id', 'name', 'status']);
    expect(properties('NewPet')).toEqual(['categoryId', 'name', 'status']);
    expect(properties('Category')).toEqual(['description', 'id', 'name']);
    expect(properties('NewCategory')).toEqual(['description', 'name']);
    expect(properties('PetDetails')).toEqual(['category', 'categoryId', 'id', 'inventory', 'name', 'status']);
    expect(resolve(document, schemas['PetStatus'])?.enum).toEqual(['available', 'pending', 'sold']);
  });

  it('answers with or without a key, even a wrong one', async () => {
    for (const authorization of [`Bearer ${stackState().apiKey}`, 'Bearer wrong-key', 'Basic Zm9vOmJhcg==']) {
      const response = await api('GET', '/openapi.json', { headers: { authorization } });
      expect(response.status).toBe(200);
      expect(response.body).toEqual(document);
    }
  });
});

describe('GET /docs', () => {
  it('answers an HTML page, without a key, whose scripts and styles load and point at /openapi.json', async () => {
    const page = await api('GET', '/docs', { headers: { authorization: undefined } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html\b/);
    expect(page.text).toMatch(/<html/i);

    const assets = [...page.text.matchAll(/<(?:script[^>]*\ssrc|link[^>]*\shref)="([^"]+)"/g)].map((match) => match[1]);
    expect(assets.some((asset) => /\.js(\?|$)/.test(asset))).toBe(true);
    let loaded = page.text;
    for (const asset of assets) {
      const url = new URL(asset, `${stackState().gatewayUrl}/docs`);
      expect(url.origin).toBe(stackState().gatewayUrl);
      const response = await api('GET', `${url.pathname}${url.search}`, { headers: { authorization: undefined } });
      expect({ asset, status: response.status }).toEqual({ asset, status: 200 });
      loaded += response.text;
    }
    // Swagger UI, pointed at this gateway's document.
    expect(loaded).toMatch(/SwaggerUI/);
    expect(loaded).toMatch(/["'`]\/openapi\.json["'`]/);
  });
});
