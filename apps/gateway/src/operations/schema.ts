import { ERROR_CODES } from '@petstore/contracts';
import { ERROR_STATUS } from '../http/api-error';

/**
 * A JSON Schema written in the subset that both ajv (validation) and OpenAPI 3.0 (the
 * document) read the same way: no `const`, no `null` type (`nullable` instead), no `$ref`.
 */
export type Schema = { readonly [keyword: string]: unknown };

const names = new WeakMap<object, string>();

/** Names a schema: the OpenAPI document lists it under `components.schemas` and refers to it. */
export function named<T extends Schema>(name: string, schema: T): T {
  names.set(schema, name);
  return schema;
}

export function nameOf(schema: object): string | undefined {
  return names.get(schema);
}

export const INT64_MAX = 9223372036854775807n;

/** Not blank: at least one character that is not white space. */
export const NOT_BLANK = '\\S';

/** Ids in bodies and queries: positive int64 JSON numbers (`format: int64` is checked by the validator). */
export const Id = { type: 'integer', format: 'int64', minimum: 1 } as const satisfies Schema;

/** Path ids: documented as int64; checked as decimal text so that all of int64 is exact (see `parsePathId`). */
export const PathId = {
  type: 'integer',
  format: 'int64',
  minimum: 1,
  description: 'A positive 64-bit integer in decimal, without sign or leading zeros.',
} as const satisfies Schema;

export const Limit = {
  type: 'integer',
  minimum: 1,
  maximum: 100,
  default: 20,
  description: 'Page size.',
} as const satisfies Schema;

export const After = {
  type: 'integer',
  format: 'int64',
  minimum: 0,
  default: 0,
  description: 'Cursor: the last id of the previous page (0 = from the start). The `Link` header carries the next one.',
} as const satisfies Schema;

export const FieldError = named('FieldError', {
  type: 'object',
  required: ['field', 'message'],
  properties: {
    field: { type: 'string', description: 'The body field, query or path parameter, or header at fault.' },
    message: { type: 'string' },
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
      description: `Machine-readable, stable error code. Codes and their statuses: ${codeList}.`,
    },
    message: { type: 'string', description: 'Human-readable description of the error.' },
    status: { type: 'integer', description: 'The HTTP status code of the response.' },
    details: { type: 'array', items: FieldError, description: 'What broke the contract, on `VALIDATION_FAILED`.' },
    requestId: { type: 'string', description: 'The `X-Request-Id` of the response.' },
  },
});

export function page<T extends Schema>(name: string, items: T): Schema {
  return named(name, { type: 'array', items });
}
