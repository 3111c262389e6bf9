import type { FastifyDynamicSwaggerOptions, SwaggerTransformObject } from '@fastify/swagger';
import { STATUS_CODES } from 'node:http';
import { ERROR_STATUS, type ErrorCode } from '@petstore/contracts';
import { EmptyBody, ErrorSchema, ref, type Schema } from '../common/schemas';
import type { Operation } from './operation';

/** Statuses any `/v1` or `/v2` operation can answer with: the gateway's own checks and its upstream calls. */
const GATEWAY_CODES: ErrorCode[] = [
  ...['BAD_REQUEST', 'VALIDATION_FAILED', 'UNAUTHORIZED', 'FORBIDDEN', 'REQUEST_TIMEOUT', 'URI_TOO_LONG', 'RATE_LIMITED', 'HEADERS_TOO_LARGE'] as const,
  ...['INTERNAL_ERROR', 'SERVICE_UNAVAILABLE', 'UPSTREAM_TIMEOUT'] as const,
];
/** …and those of a request that can carry a body. */
const BODY_CODES: ErrorCode[] = ['INVALID_JSON', 'UNSUPPORTED_CONTENT_TYPE', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_CONTENT_ENCODING'];

const header = (description: string, schema: Schema = { type: 'string' }) => ({ ...schema, description });

const HEADERS = {
  requestId: header("The request id: the client's `X-Request-Id` when it is 1–128 characters of `A-Z a-z 0-9 . _ : -`, otherwise a new one."),
  rateLimitPolicy: header('The rate-limit policy of the API key (draft-ietf-httpapi-ratelimit-headers), e.g. `"default";q=1000;w=1`. Absent when rate limiting is switched off.'),
  rateLimit: header('What is left of the quota and the seconds until it is restored, e.g. `"default";r=998;t=1`. Absent when rate limiting is switched off.'),
  retryAfter: header('Seconds to wait before the next request.', { type: 'integer' }),
  wwwAuthenticate: header('`Bearer`.'),
  Location: header('Where the created resource can be read.'),
  Link: header('While more items remain: `<…>; rel="next"`, the same request with `after` set to the last id of this page.'),
  'Idempotent-Replayed': header('`true` when the response is the stored answer to an earlier request with the same `Idempotency-Key`.', { type: 'string', enum: ['true'] }),
  'Preference-Applied': header('`wait=<seconds>` when the answer was held as `Prefer: wait` asked (experimental).'),
  deprecation: header('RFC 9745: when the operation was deprecated, e.g. `@1793491200`.'),
  sunset: header('RFC 8594: when the operation stops answering (afterwards 410 `ENDPOINT_SUNSET`).'),
  successor: header('The successor operation: `</v2/pets/{petId}>; rel="successor-version"`.'),
};

export type ResponseHeader = 'Location' | 'Link' | 'Idempotent-Replayed' | 'Preference-Applied';

function headersOf(operation: Operation, status: number, extra: ResponseHeader[] = []): Record<string, Schema> {
  return {
    'X-Request-Id': HEADERS.requestId,
    ...(status === 401 ? { 'WWW-Authenticate': HEADERS.wwwAuthenticate } : { 'RateLimit-Policy': HEADERS.rateLimitPolicy, RateLimit: HEADERS.rateLimit }),
    ...(status === 429 && { 'Retry-After': HEADERS.retryAfter }),
    ...Object.fromEntries(extra.map((name) => [name, HEADERS[name]])),
    ...(operation.deprecation && { Deprecation: HEADERS.deprecation, Sunset: HEADERS.sunset, Link: HEADERS.successor }),
  };
}

/** Fastify's `schema.response`: the success and every error status the operation can answer with, each with its headers. */
export function responsesOf(operation: Operation): Record<string, Schema> {
  const codes = new Set<ErrorCode>([...GATEWAY_CODES, ...(operation.errors ?? [])]);
  if (!operation.route.startsWith('GET ')) BODY_CODES.forEach((code) => codes.add(code));
  if (operation.deprecation) codes.add('ENDPOINT_SUNSET');
  const byStatus: Record<number, ErrorCode[]> = { 417: ['BAD_REQUEST'] };
  for (const code of codes) (byStatus[ERROR_STATUS[code]] ??= []).push(code);

  const responses: Record<string, Schema> = {
    [operation.status]: {
      description: STATUS_CODES[operation.status],
      headers: headersOf(operation, operation.status, [...(operation.location ? ['Location' as const] : []), ...(operation.pagedBy ? ['Link' as const] : []), ...(operation.responseHeaders ?? [])]),
      ...(operation.response ? { content: { 'application/json': { schema: ref(operation.response) } } } : { type: 'null' }),
    },
  };
  for (const [status, statusCodes] of Object.entries(byStatus)) {
    responses[status] = {
      description: `Error: ${statusCodes.map((code) => `\`${code}\``).join(', ')}`,
      headers: headersOf(operation, Number(status)),
      content: { 'application/json': { schema: ref(ErrorSchema) } },
    };
  }
  return responses;
}

const DESCRIPTION = `Pets, categories, orders and stock of a pet store.

**Authentication.** Every \`/v1\` and \`/v2\` operation needs \`Authorization: Bearer <API key>\`. Keys carry scopes: \`catalog:read\`, \`catalog:write\`, \`orders:read\`, \`orders:write\`, \`inventory:read\`, \`inventory:write\`, or \`*\`. GETs need the \`:read\` scope of their area, everything else \`:write\`. Areas: \`/v1/pets*\`, \`/v1/categories*\`, \`/v2/pets*\` are \`catalog\`; \`/v1/store/orders*\` is \`orders\`; \`/v1/store/inventory*\` is \`inventory\`.

**Errors.** Every error is the \`Error\` object, with \`status\` equal to the HTTP status and \`requestId\` equal to \`X-Request-Id\`. Checks run in this order: the request as HTTP (400 \`BAD_REQUEST\`, 408, 414, 415 \`UNSUPPORTED_CONTENT_ENCODING\`, 417, 431), authentication (401), rate limit (429), authorisation (403), sunset (410), body size (413, more than 64 KiB), the request's form (400), then the resource's state (404, 409, 422). An unknown path answers 404 \`NOT_FOUND\`; a known path with another method 405 \`METHOD_NOT_ALLOWED\` with \`Allow\`. 503 \`SERVICE_UNAVAILABLE\` means the request was not carried out; 504 \`UPSTREAM_TIMEOUT\` that its outcome is unknown (retry a POST with the same \`Idempotency-Key\`).

**Form.** Bodies are JSON (\`application/json\` or \`application/*+json\`, UTF-8, no \`Content-Encoding\`). Unknown fields, unknown query parameters, \`null\` values, U+0000 and unpaired surrogates are refused. Lengths count Unicode code points. Ids are positive 64-bit integers; those the services issue stay below 2^53.

**Paging.** Lists take \`limit\` (1–100, default 20) and \`after\` (the last id seen, 0 = from the start), are ordered by id, hold at most 100 items, and carry \`Link: <…>; rel="next"\` while more remain.

**Rate limits.** Per API key (default 1,000 requests per second); every authenticated response carries \`RateLimit-Policy\` and \`RateLimit\`; over the limit, 429 \`RATE_LIMITED\` with \`Retry-After\`.

**Versions.** Operations live under \`/v1\` or \`/v2\`. \`x-stability-level\` marks \`beta\` and \`experimental\` operations and parameters; others are stable. Deprecated operations carry \`Deprecation\`, \`Sunset\` and a successor \`Link\`.`;

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * What @fastify/swagger cannot say from route schemas alone: an operation without a body
 * takes an optional empty one, and an experimental header parameter carries its stability
 * level on the parameter (API.md §9) rather than in its schema.
 */
function finishDocument({ openapiObject }: { openapiObject: Partial<Json> }): Json {
  for (const operation of Object.values(openapiObject['paths'] as Json).flatMap((item) => Object.values(item)) as Json[]) {
    const body = operation['requestBody'];
    if (body?.content['application/json']?.schema?.$ref === `#/components/schemas/${EmptyBody.$id}`) body.required = false;
    for (const parameter of (operation['parameters'] ?? []) as Json[]) {
      const { 'x-stability-level': stability, ...schema } = parameter['schema'];
      if (stability !== undefined) Object.assign(parameter, { schema, 'x-stability-level': stability });
    }
  }
  return openapiObject as Json;
}

/** The options of @fastify/swagger: it reads every route's schema at start ("dynamic" mode); the routes without a tag (health, docs) are not operations of the API. */
export const swaggerOptions: FastifyDynamicSwaggerOptions = {
  hideUntagged: true,
  openapi: {
    openapi: '3.0.3',
    info: {
      title: 'Pet Store API',
      version: '1.0.0',
      description: DESCRIPTION,
      contact: { name: 'Pet Store API team', email: 'api@petstore.example' },
      license: { name: 'Proprietary', url: 'https://petstore.example/license' },
    },
    servers: [{ url: '/', description: 'The gateway that serves this document.' }],
    tags: [
      { name: 'Pets', description: 'Pets and their categories (catalog service).' },
      { name: 'Store', description: 'Orders and stock (orders and inventory services).' },
    ],
    components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API key: `Authorization: Bearer <key>`.' } } },
  },
  refResolver: { buildLocalReference: (json, _baseUri, _fragment, index) => (typeof json['$id'] === 'string' ? json['$id'] : `def-${index}`) },
  transformObject: finishDocument as SwaggerTransformObject,
};
