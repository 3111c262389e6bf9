import Ajv, { type ErrorObject } from 'ajv';
import { isContractDateTime, type FieldError } from '@petstore/contracts';
import type { FastifyRequest, FastifySchema, FastifySchemaCompiler } from 'fastify';
import { EmptyBody, INT64_MAX, namedSchemas, NO_NUL, NOT_BLANK, ref, type Schema } from '../common/schemas';
import { validationFailed, type ApiError } from './api-error';

/**
 * Fastify's validator compiler for the gateway: Fastify calls it once per route and part at
 * start, and the compiled function on every request before the handler. One ajv instance
 * holds every schema. Bodies are never coerced (a JSON `"5"` is not the integer 5);
 * `useDefaults` fills the documented defaults. ajv counts string lengths in code points, as
 * the contract does. `verbose` puts the offending value in errors, to tell `null` from a
 * wrong type.
 */
const ajv = new Ajv({ allErrors: true, useDefaults: true, coerceTypes: false, strict: true, verbose: true });
ajv.addKeyword('example');

// JSON numbers are IEEE doubles: above 2^53 every integer is rounded, so the top of int64
// is compared after rounding (9223372036854775807 parses to 2^63).
ajv.addFormat('int64', { type: 'number', validate: (value: number) => Number.isInteger(value) && Math.abs(value) <= 2 ** 63 });
ajv.addFormat('date-time', { type: 'string', validate: isContractDateTime });

/** A path id: a positive int64 in canonical decimal (no sign, no leading zeros), compared exactly. */
export const isPathId = (text: unknown): text is string => typeof text === 'string' && /^[1-9][0-9]{0,18}$/.test(text) && BigInt(text) <= INT64_MAX;

/**
 * Query strings are text, so they are coerced deliberately, by the schema: a repeatable
 * parameter becomes an array, integers must be decimal integers (not `1e2`, `0x10` or ``),
 * booleans `true` or `false`. Whatever does not convert stays text, for the schema to refuse.
 * The result has no prototype, so `__proto__` is a parameter like any other (and unknown).
 */
export function coerceQuery(schema: Schema, raw: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const properties = (schema['properties'] ?? {}) as Record<string, Schema>;
  const result: Record<string, unknown> = Object.create(null);
  for (const [name, value] of Object.entries(raw)) {
    const property = Object.hasOwn(properties, name) ? properties[name] : undefined;
    if (property?.['type'] === 'array') result[name] = [value].flat().map((item) => coerceScalar(property['items'] as Schema, item));
    else result[name] = property === undefined || Array.isArray(value) ? value : coerceScalar(property, value);
  }
  return result;
}

function coerceScalar(schema: Schema, value: unknown): unknown {
  if (typeof value !== 'string') return value;
  if (schema['type'] === 'boolean') return value === 'true' ? true : value === 'false' ? false : value;
  if (schema['type'] !== 'integer' || !/^(?:0|-?[1-9][0-9]*)$/.test(value)) return value;
  // Out of int64 entirely: a value that fails both `format: int64` and any `maximum`.
  return BigInt(value) > INT64_MAX || BigInt(value) < -INT64_MAX - 1n ? Math.sign(Number(value)) * Number.MAX_VALUE : Number(value);
}

// U+0000 and a surrogate without its pair: no service can store them (API.md §3).
const UNSTORABLE = /\0|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const UNSTORABLE_MESSAGE = 'must not contain U+0000 or an unpaired surrogate';

/** Strings anywhere in a parsed body or query that contain what no service can store. */
function unstorableText(value: unknown, field = ''): FieldError[] {
  if (typeof value === 'string') return UNSTORABLE.test(value) ? [{ field: field || 'body', message: UNSTORABLE_MESSAGE }] : [];
  if (value === null || typeof value !== 'object') return [];
  const entries = Array.isArray(value) ? value.map((item, index): [string, unknown] => [`${field}[${index}]`, item]) : Object.keys(value).map((key): [string, unknown] => [field ? `${field}.${key}` : key, (value as Record<string, unknown>)[key]]);
  return entries.flatMap(([path, item]) => unstorableText(item, path));
}

/** Fields that clients see in responses but may not send (API.md §3: read-only fields). */
const READ_ONLY = new Set(['id', 'status', 'complete', 'rejectionReason', 'category', 'inventory']);

type Where = 'body' | 'query';
type Params = Record<string, unknown>;

/** The field at fault, `a.b[0]`: ajv's JSON pointer, and the property that is missing or not allowed. */
function fieldOf({ instancePath, params }: ErrorObject): string {
  const child = (params as Params)['missingProperty'] ?? (params as Params)['additionalProperty'];
  const segments = [...instancePath.split('/').slice(1), ...(child === undefined ? [] : [String(child)])];
  return segments.reduce((path, segment) => (/^\d+$/.test(segment) ? `${path}[${segment}]` : path ? `${path}.${segment}` : segment), '') || 'body';
}

const DATE_TIME_MESSAGE = 'must be an RFC 3339 date-time such as 2026-05-01T10:00:00Z';

/** The contract's wording for what ajv found, by keyword (a date-time's pattern says part of what its format does). */
const MESSAGES: Record<string, (params: Params, error: ErrorObject, where: Where) => string> = {
  required: () => 'is required',
  additionalProperties: ({ additionalProperty }, _, where) =>
    where === 'query' ? 'is not a known query parameter' : READ_ONLY.has(additionalProperty as string) ? 'is read-only' : 'is not a known field',
  type: ({ type }, { data }) => (data === null ? 'must not be null' : `must be ${/^[aeiou]/.test(String(type)) ? 'an' : 'a'} ${type}`),
  enum: ({ allowedValues }) => ((allowedValues as unknown[]).length === 1 ? `must be ${(allowedValues as unknown[])[0]}` : `must be one of ${(allowedValues as unknown[]).join(', ')}`),
  minLength: ({ limit }) => `must be at least ${limit} character${limit === 1 ? '' : 's'} long`,
  maxLength: ({ limit }) => `must be at most ${limit} characters long`,
  minimum: ({ limit }) => `must be at least ${limit}`,
  maximum: ({ limit }) => `must be at most ${limit}`,
  maxItems: ({ limit }) => `must have at most ${limit} items`,
  pattern: ({ pattern }, { parentSchema }) =>
    pattern === NOT_BLANK ? 'must not be blank' : pattern === NO_NUL ? UNSTORABLE_MESSAGE : parentSchema?.['format'] === 'date-time' ? DATE_TIME_MESSAGE : `must match ${pattern}`,
  format: ({ format }) => (format === 'date-time' ? DATE_TIME_MESSAGE : 'must be a 64-bit integer'),
  minProperties: () => 'must have at least one field',
  maxProperties: () => 'must be empty',
};

/** One message per field, the first: `""` is both too short and blank, and saying so once is enough. */
function fieldErrors(errors: readonly ErrorObject[], where: Where): FieldError[] {
  const seen = new Set<string>();
  return errors
    .map((error) => ({ field: fieldOf(error), message: MESSAGES[error.keyword]?.(error.params as Params, error, where) ?? error.message ?? 'is not valid' }))
    .filter((detail) => !seen.has(detail.field) && seen.add(detail.field));
}

/**
 * Ids issued by the services stay below 2^53, so a larger (valid int64) id in a query can match
 * nothing. It is forwarded as 2^53: exact, still nothing, and within every database integer type.
 * A body refuses ids from 2^53 on (`maximum`), and every other number of a valid request has a
 * lower maximum, so whatever is larger is a query id.
 */
const UNISSUED_ID = 2 ** 53;

/** What Fastify expects of a validator: the part as the handler reads it, or the error (Fastify marks it with `validationContext`). */
type Validator = (data: unknown) => { error: ApiError } | { value: unknown };

function answer(details: FieldError[], value: unknown): ReturnType<Validator> {
  if (details.length > 0) return { error: validationFailed(details) };
  // Only a valid request is changed: on failure the error handler checks it again, as it came.
  for (const [field, item] of Object.entries(value ?? {})) if (typeof item === 'number' && item > Number.MAX_SAFE_INTEGER) (value as Params)[field] = UNISSUED_ID;
  return { value };
}

/**
 * `fastify.setValidatorCompiler(...)`. Named schemas (`$id`) are added to ajv first, so that
 * route schemas can refer to them. Headers are not checked here: the handler that reads one
 * parses it (`Idempotency-Key`, `Prefer`).
 */
export const validatorCompiler: FastifySchemaCompiler<FastifySchema> = ({ schema: routeSchema, httpPart }) => {
  for (const named of namedSchemas()) if (!ajv.getSchema(named['$id'] as string)) ajv.addSchema(named);
  const schema = routeSchema as Schema;
  if (httpPart === 'params') {
    const names = Object.keys((schema['properties'] ?? {}) as object);
    return (params) => answer(names.filter((name) => !isPathId((params as Params)[name])).map((field) => ({ field, message: 'must be a positive 64-bit integer' })), params);
  }
  if (httpPart !== 'querystring' && httpPart !== 'body') return () => true;
  const validate = ajv.compile(schema);
  if (httpPart === 'querystring') {
    return (raw) => {
      const query = coerceQuery(schema, (raw ?? {}) as Params);
      const details = validate(query) ? [] : fieldErrors(validate.errors ?? [], 'query');
      details.push(...unstorableText(query).filter((problem) => !details.some((detail) => detail.field === problem.field)));
      return answer(details, query);
    };
  }
  const required = schema['$ref'] !== ref(EmptyBody)['$ref'];
  return (body) => {
    // Fastify hands over `null` for a request without a body; a JSON `null` never gets this far.
    if (body === null || body === undefined) return answer(required ? [{ field: 'body', message: 'is required' }] : [], body);
    // A field with U+0000 also breaks its pattern: it is named once, for what it contains.
    const unstorable = unstorableText(body);
    const details = validate(body) ? [] : fieldErrors(validate.errors ?? [], 'body').filter((detail) => !unstorable.some((problem) => problem.field === detail.field));
    return answer([...unstorable, ...details], body);
  };
};

const PARTS = { params: 'params', querystring: 'query', body: 'body' } as const;

/** Every problem of the path, query and body together: Fastify stops at the first part that fails. */
export function requestFormDetails(request: FastifyRequest): FieldError[] {
  return Object.entries(PARTS).flatMap(([part, key]) => {
    const result = (request.getValidationFunction(part as keyof typeof PARTS) as Validator | undefined)?.(request[key] ?? null);
    return (result && 'error' in result && result.error.details) || [];
  });
}
