import { ERROR_CODES, ERROR_STATUS } from '@petstore/contracts';
import { MAX_ITEMS } from '../http/api-error';

/**
 * A JSON Schema in the subset that both ajv (validation) and OpenAPI 3.0 (the document) read
 * the same way: no `const`, no `null` type (`nullable` instead).
 */
export type Schema = { readonly [keyword: string]: unknown };

const registry = new Map<string, Schema>();

/**
 * A schema with a name: Fastify knows it by `$id` (`fastify.addSchema`), route schemas and
 * other named schemas refer to it with `ref(...)`, and the document lists it under
 * `components.schemas`.
 */
export function named<T extends Schema>(name: string, schema: T): T & { $id: string } {
  const withId = { $id: name, ...schema };
  registry.set(name, withId);
  return withId;
}

export const ref = (schema: { $id: string }): Schema => ({ $ref: `${schema.$id}#` });

export const namedSchemas = (): Schema[] => [...registry.values()];

export const INT64_MAX = 9223372036854775807n;

/** Text without U+0000, which no service can store (the validator refuses unpaired surrogates too, which a pattern cannot say). */
export const NO_NUL = '^[^\\u0000]*$';

/** Not blank: at least one character that is not white space; and no U+0000. */
export const NOT_BLANK = '^[^\\u0000]*[^\\s\\u0000][^\\u0000]*$';

/**
 * Ids that name something in a query or a path: any positive int64 (`format: int64` is checked
 * by the validator); one of 2^53 or more names nothing, since no service issues it.
 */
export const LookupId = { type: 'integer', format: 'int64', minimum: 1 } as const satisfies Schema;

/**
 * Ids in bodies and responses: below 2^53, so that every JSON parser reads them exactly. A larger
 * one in a body is refused (400 naming the field) rather than rounded to an id never sent.
 */
export const Id = {
  ...LookupId,
  maximum: Number.MAX_SAFE_INTEGER,
  description: 'A positive integer below 2^53 (at most 9007199254740991): ids are issued below it, so every JSON parser reads them exactly.',
} as const satisfies Schema;

/** The path parameters of a route (`/v1/pets/:petId`): ids, checked as decimal text so that all of int64 is exact. */
export function pathParameters(url: string): Schema {
  const names = [...url.matchAll(/:(\w+)/g)].map((match) => match[1]);
  const property = (name: string) => ({ ...LookupId, description: `The id of the ${name.replace(/Id$/, '')}: a positive 64-bit integer in decimal, without sign or leading zeros.` });
  return object(Object.fromEntries(names.map((name) => [name, property(name)])), names);
}

export const Limit = { type: 'integer', minimum: 1, maximum: 100, default: 20, description: 'Page size: 1 to 100 items.' } as const satisfies Schema;

export const After = {
  type: 'integer',
  format: 'int64',
  minimum: 0,
  default: 0,
  description: 'Cursor: the last id of the previous page (0 = from the start). The `Link` header carries the next one.',
} as const satisfies Schema;

/** A repeatable query parameter. */
export const repeatable = (item: Schema, description: string): Schema => ({ type: 'array', items: item, maxItems: MAX_ITEMS, description });

/** An object with these properties, of which `required` are always there; `more` adds keywords. */
export function object(properties: Record<string, Schema>, required: readonly string[] = [], more: Schema = {}): Schema {
  return { type: 'object', ...(required.length > 0 && { required }), properties, ...more };
}

/** What a client sends, a body or a query: only what it lists (API.md §3: unknown fields and parameters are refused). */
export const input = (properties: Record<string, Schema> = {}, required: readonly string[] = [], more: Schema = {}): Schema =>
  object(properties, required, { additionalProperties: false, ...more });

/** A list's query: its filters, then the paging parameters (API.md §3). */
export const pageQuery = (filters: Record<string, Schema> = {}, after: Schema = After): Schema => input({ ...filters, limit: Limit, after });

/** Operations without a body take none: nothing, or an empty JSON object from a client that always sends one. */
export const EmptyBody = named('EmptyBody', { type: 'object', maxProperties: 0, description: 'No body: nothing, or an empty JSON object.' });

export const FieldErrorSchema = named('FieldError', {
  type: 'object',
  required: ['field', 'message'],
  properties: {
    field: { type: 'string', description: 'The body field, query or path parameter, or header at fault.' },
    message: { type: 'string', description: 'What is wrong with it.' },
  },
});

const codeList = ERROR_CODES.map((code) => `\`${code}\` (${ERROR_STATUS[code]})`).join(', ');

export const ErrorSchema = named('Error', {
  type: 'object',
  required: ['code', 'message', 'status'],
  properties: {
    code: {
      type: 'string',
      enum: [...ERROR_CODES],
      description: `Machine-readable, stable error code. Codes and their statuses: ${codeList}; \`BAD_REQUEST\` is 417 for an \`Expect\` that cannot be met.`,
    },
    message: { type: 'string', description: 'Human-readable description of the error.' },
    status: { type: 'integer', description: 'The HTTP status code of the response.' },
    details: { type: 'array', items: ref(FieldErrorSchema), maxItems: MAX_ITEMS, description: 'What broke the contract, on `VALIDATION_FAILED`.' },
    requestId: { type: 'string', description: 'The `X-Request-Id` of the response.' },
  },
});

/** A page of a list: at most 100 items (API.md §3). */
export const page = (name: string, item: { $id: string }) => named(name, { type: 'array', items: ref(item), maxItems: MAX_ITEMS });
