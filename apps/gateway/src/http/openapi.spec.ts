import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createGateway } from '../gateway';
import { IDEMPOTENCY_KEY_PATTERN } from '../orders/idempotency-key';

// The document @fastify/swagger builds from the routes, as the gateway serves it.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

const unreachable = { host: '127.0.0.1', port: 1 };
let app: NestFastifyApplication;
let document: Json;

beforeAll(async () => {
  app = await createGateway({
    nodeEnv: 'test',
    host: '127.0.0.1',
    httpPort: 0,
    metricsPort: 0,
    rpcTransport: 'tcp',
    natsServers: [],
    nats: undefined,
    natsSubjectPrefix: '',
    catalogRpc: unreachable,
    ordersRpc: unreachable,
    inventoryRpc: unreachable,
    apiKeys: [],
    rateLimitPerSecond: 0,
    rateLimitRedisUrl: undefined,
    rateLimitRedisPassword: undefined,
    rateLimitRedisCaFile: undefined,
    rateLimitRedisTimeoutMs: 50,
    upstreamTimeoutMs: 100,
    inventoryDetailsTimeoutMs: 100,
    petsV1Sunset: new Date('2027-06-30T23:59:59Z'),
    logLevel: 'error',
  });
  const fastify = app.getHttpAdapter().getInstance();
  await fastify.ready();
  document = fastify.swagger() as Json;
});

afterAll(async () => {
  await app.close();
});

const operations = (): Array<[string, Json]> =>
  Object.entries(document['paths'] as Json).flatMap(([path, item]) => Object.entries(item as Json).map(([method, operation]): [string, Json] => [`${method} ${path}`, operation]));

/** Every schema object in the document, wherever it is. */
function schemas(node: unknown, found: Json[] = []): Json[] {
  if (Array.isArray(node)) node.forEach((item) => schemas(item, found));
  else if (node !== null && typeof node === 'object') {
    if (typeof (node as Json)['type'] === 'string') found.push(node as Json);
    Object.values(node).forEach((value) => schemas(value, found));
  }
  return found;
}

describe('the OpenAPI document', () => {
  it('states the bounds of every date-time a client sends: year 1970–9999 as written, no leap second', () => {
    const components = document['components'].schemas;
    const shipDates = [components.NewOrder.properties.shipDate, components.OrderFulfilment.properties.shipDate];
    for (const shipDate of shipDates) {
      expect(shipDate).toMatchObject({ type: 'string', format: 'date-time', pattern: expect.any(String) });
      const pattern = new RegExp(shipDate.pattern, 'u');
      for (const taken of ['1970-01-01T00:00:00Z', '9999-12-31T23:59:59.999Z', '1970-01-01T01:00:00+01:00', '1969-12-31T23:30:00-01:00', '2026-05-01t10:00:00.5+02:00']) {
        expect([taken, pattern.test(taken)]).toEqual([taken, true]);
      }
      for (const refused of ['1969-12-31T23:59:59Z', '0001-01-01T00:00:00+23:59', '2026-12-31T23:59:60Z', '10000-01-01T00:00:00Z']) {
        expect([refused, pattern.test(refused)]).toEqual([refused, false]);
      }
    }
  });

  it('states that no text a client sends may contain U+0000', () => {
    const components = document['components'].schemas;
    const texts = [
      components.NewPet.properties.name,
      components.PetPatch.properties.name,
      components.NewCategory.properties.name,
      components.NewCategory.properties.description,
      document['paths']['/v1/pets'].get.parameters.find((parameter: Json) => parameter['name'] === 'name').schema,
    ];
    for (const text of texts) {
      const pattern = new RegExp(text.pattern, 'u');
      expect([text.pattern, pattern.test('Rex'), pattern.test('R\u0000x'), pattern.test('\u0000')]).toEqual([text.pattern, true, false, false]);
    }
    expect(new RegExp(components.NewPet.properties.name.pattern, 'u').test(' \t ')).toBe(false);
  });

  it('turns route parameters into templates and described path parameters', () => {
    expect(document['paths']['/v1/pets/{petId}'].get.parameters).toEqual([
      { name: 'petId', in: 'path', required: true, description: expect.stringMatching(/positive 64-bit integer/), schema: { type: 'integer', format: 'int64', minimum: 1 } },
    ]);
  });

  it('lists the gateway statuses on every operation and the body ones on those that take a body', () => {
    expect(Object.keys(document['paths']['/v1/pets/{petId}'].get.responses)).toEqual(['200', '400', '401', '403', '404', '408', '410', '414', '417', '429', '431', '500', '503', '504']);
    expect(Object.keys(document['paths']['/v1/categories'].post.responses)).toEqual(['201', '400', '401', '403', '408', '409', '413', '414', '415', '417', '429', '431', '500', '503', '504']);
    expect(document['paths']['/v1/pets'].post.responses['400'].description).toBe('Error: `BAD_REQUEST`, `VALIDATION_FAILED`, `INVALID_JSON`, `UNSUPPORTED_CONTENT_TYPE`');
    expect(document['paths']['/v1/pets'].post.responses['415'].description).toBe('Error: `UNSUPPORTED_CONTENT_ENCODING`');
  });

  it('refers to named schemas and lists them as components', () => {
    expect(document['paths']['/v1/pets/{petId}'].patch.requestBody.content).toEqual({
      'application/json': { schema: { $ref: '#/components/schemas/PetPatch' } },
      'application/merge-patch+json': { schema: { $ref: '#/components/schemas/PetPatch' } },
    });
    expect(document['components'].schemas.PetDetails.properties.category).toEqual({ $ref: '#/components/schemas/Category' });
    expect(Object.keys(document['components'].schemas)).toEqual(expect.arrayContaining(['Error', 'FieldError', 'Pet', 'NewPet', 'PetStatus', 'Order', 'NewOrder', 'EmptyBody']));
  });

  it('describes repeatable query parameters as arrays of at most 100', () => {
    expect(document['paths']['/v1/pets'].get.parameters[0]).toEqual({
      name: 'status',
      in: 'query',
      required: false,
      description: 'Repeatable: pets with any of these statuses.',
      schema: { type: 'array', items: { $ref: '#/components/schemas/PetStatus' }, maxItems: 100 },
    });
  });

  it('says maxItems on every array (API.md §3)', () => {
    const arrays = schemas(document).filter((schema) => schema['type'] === 'array');
    expect(arrays.length).toBeGreaterThan(5);
    expect(arrays.filter((schema) => schema['maxItems'] !== 100)).toEqual([]);
  });

  it('marks deprecation with x-sunset and the deprecation headers on every response', () => {
    const getPet = document['paths']['/v1/pets/{petId}'].get;
    expect(getPet).toMatchObject({ deprecated: true, 'x-sunset': '2027-06-30T23:59:59Z', description: expect.stringMatching(/410 `ENDPOINT_SUNSET`/) });
    for (const response of Object.values(getPet.responses) as Json[]) {
      expect(Object.keys(response['headers'])).toEqual(expect.arrayContaining(['Deprecation', 'Sunset', 'Link', 'X-Request-Id']));
    }
    expect(operations().filter(([, operation]) => operation['deprecated']).map(([name]) => name)).toEqual(['get /v1/pets/{petId}']);
  });

  it('marks the stability levels and the success headers', () => {
    const place = document['paths']['/v1/store/orders'].post;
    expect(Object.keys(place.responses['201'].headers)).toEqual(['X-Request-Id', 'RateLimit-Policy', 'RateLimit', 'Location', 'Idempotent-Replayed', 'Preference-Applied']);
    expect(place.responses['401'].headers['WWW-Authenticate']).toBeDefined();
    expect(place.responses['401'].headers['RateLimit']).toBeUndefined();
    expect(place.responses['429'].headers['Retry-After']).toEqual({ description: 'Seconds to wait before the next request.', schema: { type: 'integer' } });
    const levels = operations().filter(([, operation]) => operation['x-stability-level']).map(([name, operation]) => `${name} ${operation['x-stability-level']}`);
    expect(levels.sort()).toEqual(['get /v2/pets/{petId} beta', 'post /v1/store/orders/{orderId}/cancel beta']);
  });

  it('documents Prefer on placing and reading an order, as an experimental parameter (API.md §9)', () => {
    for (const operation of [document['paths']['/v1/store/orders'].post, document['paths']['/v1/store/orders/{orderId}'].get]) {
      const prefer = (operation.parameters as Json[]).find((parameter) => parameter['name'] === 'Prefer');
      expect(prefer).toMatchObject({ in: 'header', required: false, 'x-stability-level': 'experimental', description: expect.stringMatching(/wait=<seconds>/) });
      expect(prefer?.['schema']).toEqual({ type: 'string', example: 'wait=5' });
      expect(operation.responses[operation.responses['201'] ? '201' : '200'].headers['Preference-Applied']).toBeDefined();
    }
  });

  it('says exactly which Idempotency-Key values the API takes', () => {
    const key = (document['paths']['/v1/store/orders'].post.parameters as Json[]).find((parameter) => parameter['name'] === 'Idempotency-Key');
    expect(key).toMatchObject({ in: 'header', required: false, schema: { type: 'string', pattern: IDEMPOTENCY_KEY_PATTERN } });
  });

  it('agrees with the API on the empty body of the operations that take none', () => {
    const cancel = document['paths']['/v1/store/orders/{orderId}/cancel'].post;
    expect(cancel.requestBody).toEqual({ required: false, content: { 'application/json': { schema: { $ref: '#/components/schemas/EmptyBody' } } } });
    expect(document['components'].schemas.EmptyBody).toMatchObject({ type: 'object', maxProperties: 0 });
    expect(document['paths']['/v1/pets/{petId}'].get.requestBody).toBeUndefined();
  });

  it('describes every operation and every parameter, and names a contact and a licence', () => {
    for (const [name, operation] of operations()) {
      expect({ name, description: typeof operation['description'] }).toEqual({ name, description: 'string' });
      for (const parameter of (operation['parameters'] ?? []) as Json[]) {
        expect({ name, parameter: parameter['name'], described: typeof parameter['description'] === 'string' && parameter['schema']['description'] === undefined }).toEqual({
          name,
          parameter: parameter['name'],
          described: true,
        });
      }
    }
    expect(document['info']).toMatchObject({ contact: { name: expect.any(String) }, license: { name: expect.any(String), url: expect.any(String) } });
  });
});
