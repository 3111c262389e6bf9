import type { ErrorCode } from '@petstore/contracts';
import { ERROR_STATUS } from '../http/api-error';
import type { OperationSpec, ResponseHeader } from './operation.decorator';
import { ErrorSchema, nameOf, PathId, type Schema } from './schema';

/** An operation as the document needs it: the route and the spec declared beside the handler. */
export interface DocumentedOperation {
  /** HTTP method, upper case. */
  method: string;
  /** Route path with `:name` parameters, as registered. */
  path: string;
  spec: OperationSpec;
}

export interface OpenApiOptions {
  sunset: Date;
}

type Json = Record<string, unknown>;

/** Statuses the gateway itself may answer any `/v1` or `/v2` operation with. */
const GATEWAY_CODES: ErrorCode[] = [
  'VALIDATION_FAILED',
  'UNAUTHORIZED',
  'FORBIDDEN',
  'RATE_LIMITED',
  'INTERNAL_ERROR',
  'SERVICE_UNAVAILABLE',
  'UPSTREAM_TIMEOUT',
];
/** …and those of a request that can carry a body. */
const BODY_CODES: ErrorCode[] = ['INVALID_JSON', 'UNSUPPORTED_CONTENT_TYPE', 'PAYLOAD_TOO_LARGE'];

const HEADERS: Record<string, Json> = {
  RequestId: {
    description: 'The request id: the client\'s `X-Request-Id` when it is 1–128 characters of `A-Z a-z 0-9 . _ : -`, otherwise a new one.',
    schema: { type: 'string' },
  },
  RateLimitPolicy: {
    description: 'The rate-limit policy of the API key (draft-ietf-httpapi-ratelimit-headers), e.g. `"default";q=1000;w=1`. Absent when rate limiting is switched off.',
    schema: { type: 'string' },
  },
  RateLimit: {
    description: 'What is left of the quota and the seconds until it is restored, e.g. `"default";r=998;t=1`. Absent when rate limiting is switched off.',
    schema: { type: 'string' },
  },
  RetryAfter: { description: 'Seconds to wait before the next request.', schema: { type: 'integer' } },
  WWWAuthenticate: { description: '`Bearer`.', schema: { type: 'string' } },
  Location: { description: 'Where the created resource can be read.', schema: { type: 'string' } },
  NextLink: {
    description: 'While more items remain: `<…>; rel="next"`, the same request with `after` set to the last id of this page.',
    schema: { type: 'string' },
  },
  IdempotentReplayed: {
    description: '`true` when the response is the stored answer to an earlier request with the same `Idempotency-Key`.',
    schema: { type: 'string', enum: ['true'] },
  },
  Deprecation: { description: 'RFC 9745: when the operation was deprecated, e.g. `@1793491200`.', schema: { type: 'string' } },
  Sunset: { description: 'RFC 8594: when the operation stops answering (afterwards 410 `ENDPOINT_SUNSET`).', schema: { type: 'string' } },
  SuccessorLink: { description: 'The successor operation: `</v2/pets/{petId}>; rel="successor-version"`.', schema: { type: 'string' } },
};

const headerRef = (name: keyof typeof HEADERS) => ({ $ref: `#/components/headers/${name}` });

const SUCCESS_HEADERS: Record<ResponseHeader, Json> = {
  Location: headerRef('Location'),
  Link: headerRef('NextLink'),
  'Idempotent-Replayed': headerRef('IdempotentReplayed'),
};

const SUCCESS_DESCRIPTION: Record<number, string> = { 200: 'OK', 201: 'Created', 204: 'No Content' };

/** Turns schemas into document form: named schemas become components and are referred to. */
class Components {
  readonly schemas: Record<string, unknown> = {};

  use(schema: Schema): unknown {
    const name = nameOf(schema);
    if (name === undefined) return this.inline(schema);
    if (!(name in this.schemas)) {
      this.schemas[name] = {};
      this.schemas[name] = this.inline(schema);
    }
    return { $ref: `#/components/schemas/${name}` };
  }

  private inline(schema: Schema): Json {
    const result: Json = {};
    for (const [keyword, value] of Object.entries(schema)) {
      if (keyword === 'properties') {
        result[keyword] = Object.fromEntries(
          Object.entries(value as Record<string, Schema>).map(([property, sub]) => [property, this.use(sub)]),
        );
      } else if (keyword === 'items') {
        result[keyword] = this.use(value as Schema);
      } else {
        result[keyword] = value;
      }
    }
    return result;
  }
}

function codesOf(operation: DocumentedOperation): ErrorCode[] {
  const { method, spec } = operation;
  const codes = new Set<ErrorCode>([...GATEWAY_CODES, ...(spec.errors ?? [])]);
  if (method !== 'GET') BODY_CODES.forEach((code) => codes.add(code));
  if (spec.deprecation) codes.add('ENDPOINT_SUNSET');
  return [...codes];
}

function errorResponses(operation: DocumentedOperation): Record<string, Json> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codesOf(operation)) {
    const status = ERROR_STATUS[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Record<string, Json> = {};
  for (const status of [...byStatus.keys()].sort((a, b) => a - b)) {
    const headers: Json = { 'X-Request-Id': headerRef('RequestId') };
    if (status === 401) headers['WWW-Authenticate'] = headerRef('WWWAuthenticate');
    else Object.assign(headers, { 'RateLimit-Policy': headerRef('RateLimitPolicy'), RateLimit: headerRef('RateLimit') });
    if (status === 429) headers['Retry-After'] = headerRef('RetryAfter');
    responses[String(status)] = {
      description: `Error: ${byStatus.get(status)?.map((code) => `\`${code}\``).join(', ')}`,
      headers,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    };
  }
  return responses;
}

function isoSeconds(date: Date): string {
  return date.toISOString().replace(/\.000Z$/, 'Z');
}

function operationObject(operation: DocumentedOperation, components: Components, options: OpenApiOptions): Json {
  const { spec, path } = operation;
  const parameters: Json[] = [];
  for (const match of path.matchAll(/:(\w+)/g)) {
    parameters.push({ name: match[1], in: 'path', required: true, schema: components.use(PathId) });
  }
  const query = spec.query?.['properties'] as Record<string, Schema> | undefined;
  const required = new Set((spec.query?.['required'] as string[] | undefined) ?? []);
  for (const [name, schema] of Object.entries(query ?? {})) {
    const { description, ...rest } = schema;
    parameters.push({
      name,
      in: 'query',
      required: required.has(name),
      ...(description !== undefined && { description }),
      schema: components.use(rest),
      ...(schema['type'] === 'array' && { style: 'form', explode: true }),
    });
  }
  for (const header of spec.headers ?? []) {
    parameters.push({ name: header.name, in: 'header', required: false, description: header.description, schema: components.use(header.schema) });
  }

  const successHeaders: Json = { 'X-Request-Id': headerRef('RequestId'), 'RateLimit-Policy': headerRef('RateLimitPolicy'), RateLimit: headerRef('RateLimit') };
  for (const header of spec.responseHeaders ?? []) successHeaders[header] = SUCCESS_HEADERS[header];
  const responses: Record<string, Json> = {
    [String(spec.status)]: {
      description: SUCCESS_DESCRIPTION[spec.status],
      headers: successHeaders,
      ...(spec.response && { content: { 'application/json': { schema: components.use(spec.response) } } }),
    },
    ...errorResponses(operation),
  };
  if (spec.deprecation) {
    for (const response of Object.values(responses)) {
      response['headers'] = {
        ...(response['headers'] as Json),
        Deprecation: headerRef('Deprecation'),
        Sunset: headerRef('Sunset'),
        Link: headerRef('SuccessorLink'),
      };
    }
  }

  return {
    operationId: spec.operationId,
    tags: [spec.tag],
    summary: spec.summary,
    ...(spec.description && { description: spec.description }),
    ...(parameters.length > 0 && { parameters }),
    ...(spec.body && {
      requestBody: {
        required: true,
        content: Object.fromEntries((spec.bodyTypes ?? ['application/json']).map((type) => [type, { schema: components.use(spec.body as Schema) }])),
      },
    }),
    responses,
    security: [{ bearerAuth: [] }],
    ...(spec.deprecation && { deprecated: true, 'x-sunset': isoSeconds(options.sunset) }),
    ...(spec.stability && { 'x-stability-level': spec.stability }),
  };
}

const DESCRIPTION = `Pets, categories, orders and stock of a pet store.

**Authentication.** Every \`/v1\` and \`/v2\` operation needs \`Authorization: Bearer <API key>\`. Keys carry scopes: \`catalog:read\`, \`catalog:write\`, \`orders:read\`, \`orders:write\`, \`inventory:read\`, \`inventory:write\`, or \`*\`. GETs need the \`:read\` scope of their area, everything else \`:write\`. Areas: \`/v1/pets*\`, \`/v1/categories*\`, \`/v2/pets*\` are \`catalog\`; \`/v1/store/orders*\` is \`orders\`; \`/v1/store/inventory*\` is \`inventory\`.

**Errors.** Every error is the \`Error\` object, with \`status\` equal to the HTTP status and \`requestId\` equal to \`X-Request-Id\`. Checks run in this order: authentication (401), rate limit (429), authorisation (403), sunset (410), body size (413, more than 64 KiB), the request's form (400), then the resource's state (404, 409, 422). An unknown path answers 404 \`NOT_FOUND\`; a known path with another method 405 \`METHOD_NOT_ALLOWED\` with \`Allow\`.

**Form.** Bodies are JSON (\`application/json\` or \`application/*+json\`, UTF-8). Unknown fields, unknown query parameters and \`null\` values are refused. Lengths count Unicode code points. Ids are positive 64-bit integers; those the services issue stay below 2^53.

**Paging.** Lists take \`limit\` (1–100, default 20) and \`after\` (the last id seen, 0 = from the start), are ordered by id, and carry \`Link: <…>; rel="next"\` while more remain.

**Rate limits.** Per API key (default 1,000 requests per second); every authenticated response carries \`RateLimit-Policy\` and \`RateLimit\`; over the limit, 429 \`RATE_LIMITED\` with \`Retry-After\`.

**Versions.** Operations live under \`/v1\` or \`/v2\`. \`x-stability-level\` marks \`beta\` and \`experimental\` operations; others are stable. Deprecated operations carry \`Deprecation\`, \`Sunset\` and a successor \`Link\`.`;

/** The OpenAPI 3.0.3 document, from the operations as declared in the code. */
export function buildOpenApi(operations: readonly DocumentedOperation[], options: OpenApiOptions): Json {
  const components = new Components();
  components.use(ErrorSchema);
  const paths: Record<string, Json> = {};
  for (const operation of operations) {
    const template = operation.path.replace(/:(\w+)/g, '{$1}');
    paths[template] ??= {};
    paths[template][operation.method.toLowerCase()] = operationObject(operation, components, options);
  }
  return {
    openapi: '3.0.3',
    info: { title: 'Pet Store API', version: '1.0.0', description: DESCRIPTION },
    servers: [{ url: '/' }],
    tags: [
      { name: 'Pets', description: 'Pets and their categories (catalog service).' },
      { name: 'Store', description: 'Orders and stock (orders and inventory services).' },
    ],
    paths,
    components: {
      schemas: components.schemas,
      headers: HEADERS,
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API key: `Authorization: Bearer <key>`.' } },
    },
  };
}
