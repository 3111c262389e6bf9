import { buildOpenApi, type DocumentedOperation } from './openapi.builder';
import { named } from './schema';

const Thing = named('Thing', { type: 'object', properties: { id: { type: 'integer' }, tags: { type: 'array', items: named('Tag', { type: 'string' }) } } });
const sunset = new Date('2027-06-30T23:59:59Z');

const getThing: DocumentedOperation = {
  method: 'GET',
  path: '/v1/things/:thingId',
  spec: {
    operationId: 'getThing',
    tag: 'Pets',
    summary: 'Get',
    status: 200,
    response: Thing,
    errors: ['PET_NOT_FOUND'],
    deprecation: { since: '2026-11-01T00:00:00Z', successor: '/v2/things/{thingId}' },
  },
};
const createThing: DocumentedOperation = {
  method: 'POST',
  path: '/v1/things',
  spec: {
    operationId: 'createThing',
    tag: 'Store',
    summary: 'Create',
    status: 201,
    body: Thing,
    bodyTypes: ['application/json', 'application/merge-patch+json'],
    response: Thing,
    responseHeaders: ['Location'],
    query: { type: 'object', properties: { status: { type: 'array', items: { type: 'string' }, description: 'Repeatable.' } } },
    errors: ['UNKNOWN_CATEGORY', 'CATEGORY_NAME_TAKEN'],
    stability: 'experimental',
  },
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const document = buildOpenApi([getThing, createThing], { sunset }) as any;

describe('buildOpenApi', () => {
  it('turns route parameters into templates and path parameters', () => {
    const operation = document.paths['/v1/things/{thingId}'].get;
    expect(operation.parameters).toEqual([
      { name: 'thingId', in: 'path', required: true, schema: expect.objectContaining({ type: 'integer', format: 'int64', minimum: 1 }) },
    ]);
  });

  it('lists the gateway statuses on every operation and the body ones on those that take a body', () => {
    expect(Object.keys(document.paths['/v1/things/{thingId}'].get.responses)).toEqual(['200', '400', '401', '403', '404', '410', '429', '500', '503', '504']);
    expect(Object.keys(document.paths['/v1/things'].post.responses)).toEqual(['201', '400', '401', '403', '409', '413', '422', '429', '500', '503', '504']);
    expect(document.paths['/v1/things'].post.responses['400'].description).toBe('Error: `VALIDATION_FAILED`, `INVALID_JSON`, `UNSUPPORTED_CONTENT_TYPE`');
  });

  it('refers to named schemas and lists them as components', () => {
    expect(document.paths['/v1/things'].post.requestBody.content).toEqual({
      'application/json': { schema: { $ref: '#/components/schemas/Thing' } },
      'application/merge-patch+json': { schema: { $ref: '#/components/schemas/Thing' } },
    });
    expect(document.components.schemas.Thing.properties.tags.items).toEqual({ $ref: '#/components/schemas/Tag' });
    expect(Object.keys(document.components.schemas).sort()).toEqual(['Error', 'FieldError', 'Tag', 'Thing']);
  });

  it('describes repeatable query parameters as exploded forms', () => {
    expect(document.paths['/v1/things'].post.parameters).toEqual([
      { name: 'status', in: 'query', required: false, description: 'Repeatable.', schema: { type: 'array', items: { type: 'string' } }, style: 'form', explode: true },
    ]);
  });

  it('marks deprecation with x-sunset and the deprecation headers on every response', () => {
    const operation = document.paths['/v1/things/{thingId}'].get;
    expect(operation.deprecated).toBe(true);
    expect(operation['x-sunset']).toBe('2027-06-30T23:59:59Z');
    for (const response of Object.values(operation.responses) as Array<{ headers: object }>) {
      expect(Object.keys(response.headers)).toEqual(expect.arrayContaining(['Deprecation', 'Sunset', 'Link', 'X-Request-Id']));
    }
    expect(document.paths['/v1/things'].post.deprecated).toBeUndefined();
  });

  it('marks the stability level and the success headers', () => {
    const operation = document.paths['/v1/things'].post;
    expect(operation['x-stability-level']).toBe('experimental');
    expect(operation.responses['201'].headers.Location).toEqual({ $ref: '#/components/headers/Location' });
    expect(operation.responses['401'].headers['WWW-Authenticate']).toBeDefined();
    expect(operation.responses['401'].headers['RateLimit']).toBeUndefined();
    expect(operation.responses['429'].headers['Retry-After']).toBeDefined();
  });
});
