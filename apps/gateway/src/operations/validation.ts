import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import type { FieldError } from '@petstore/contracts';
import { INT64_MAX, NOT_BLANK, type Schema } from './schema';

/**
 * One ajv instance for the whole gateway; every schema is compiled once, at start.
 * Bodies are never coerced (a JSON `"5"` is not the integer 5); `useDefaults` fills the
 * documented defaults (`NewPet.status`, `limit`, `after`). ajv counts string lengths in code
 * points, as the contract does.
 */
// `verbose` puts the offending value in errors, to tell `null` from a wrong type.
const ajv = new Ajv({ allErrors: true, useDefaults: true, coerceTypes: false, strict: true, verbose: true });
ajv.addKeyword('example');

// JSON numbers are IEEE doubles: above 2^53 every integer is rounded, so the top of int64
// is compared after rounding (9223372036854775807 parses to 2^63).
const TWO_POW_63 = 2 ** 63;
ajv.addFormat('int64', {
  type: 'number',
  validate: (value: number) => Number.isInteger(value) && value >= -TWO_POW_63 && value <= TWO_POW_63,
});
ajv.addFormat('date-time', { type: 'string', validate: isRfc3339DateTime });

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.\d{1,9})?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;
const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * RFC 3339 §5.6 `date-time`, strictly: `T` (or `t`) between date and time and an offset that
 * is `Z` or `±hh:mm`. (ajv-formats' `date-time` also takes a space and `+hh`/`+hhmm`.) Year
 * 0000 is refused because the services' databases cannot store it.
 */
export function isRfc3339DateTime(text: string): boolean {
  const match = DATE_TIME.exec(text);
  if (!match) return false;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number);
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  if (year < 1 || month < 1 || month > 12 || day < 1) return false;
  if (day > (month === 2 && leap ? 29 : DAYS[month - 1])) return false;
  const offsetHours = match[8] === undefined ? 0 : Number(match[8]);
  const offsetMinutes = match[9] === undefined ? 0 : Number(match[9]);
  if (hour > 23 || minute > 59 || offsetHours > 23 || offsetMinutes > 59) return false;
  if (second < 60) return true;
  // A leap second is only ever 23:59:60 in UTC.
  const sign = match[7] === '-' ? -1 : 1;
  const utcMinutes = (((hour * 60 + minute - sign * (offsetHours * 60 + offsetMinutes)) % 1440) + 1440) % 1440;
  return second === 60 && utcMinutes === 23 * 60 + 59;
}

const PATH_ID = /^[1-9][0-9]{0,18}$/;

/** A path id: a positive int64 in canonical decimal (no sign, no leading zeros), compared exactly. */
export function isPathId(text: unknown): text is string {
  return typeof text === 'string' && PATH_ID.test(text) && (text.length < 19 || BigInt(text) <= INT64_MAX);
}

const INTEGER_TEXT = /^(?:0|-?[1-9][0-9]*)$/;

/**
 * Query strings are text, so they are coerced deliberately, by the schema: a repeatable
 * parameter becomes an array, integers must be decimal integers (not `1e2`, `0x10` or ``),
 * booleans `true` or `false`. Whatever does not convert stays text, for the schema to refuse.
 */
export function coerceQuery(schema: Schema, raw: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const properties = (schema['properties'] ?? {}) as Record<string, Schema>;
  const result: Record<string, unknown> = {};
  for (const name of Object.keys(raw)) {
    const value = raw[name];
    const property = Object.hasOwn(properties, name) ? properties[name] : undefined;
    if (property === undefined) result[name] = value;
    else if (property['type'] === 'array') {
      result[name] = (Array.isArray(value) ? value : [value]).map((item) => coerceScalar(property['items'] as Schema, item));
    } else result[name] = Array.isArray(value) ? value : coerceScalar(property, value);
  }
  return result;
}

function coerceScalar(schema: Schema, value: unknown): unknown {
  if (typeof value !== 'string') return value;
  switch (schema['type']) {
    case 'integer':
      if (!INTEGER_TEXT.test(value)) return value;
      if (value.length <= 15) return Number(value);
      // Out of int64 entirely: a value that fails both `format: int64` and any `maximum`.
      return BigInt(value) > INT64_MAX || BigInt(value) < -INT64_MAX - 1n
        ? Math.sign(Number(value)) * Number.MAX_VALUE
        : Number(value);
    case 'boolean':
      return value === 'true' ? true : value === 'false' ? false : value;
    default:
      return value;
  }
}

/** Fields that clients see in responses but may not send (API.md §3: read-only fields). */
const READ_ONLY = new Set(['id', 'status', 'complete', 'rejectionReason', 'category', 'inventory']);

type Where = 'body' | 'query';

function fieldOf(instancePath: string, child?: string): string {
  const segments = instancePath.split('/').slice(1);
  if (child !== undefined) segments.push(child);
  if (segments.length === 0) return 'body';
  return segments.reduce((path, segment) => (/^\d+$/.test(segment) ? `${path}[${segment}]` : path ? `${path}.${segment}` : segment), '');
}

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

function describe(error: ErrorObject, where: Where): FieldError {
  const params = error.params as Record<string, unknown>;
  const field = fieldOf(error.instancePath);
  switch (error.keyword) {
    case 'required':
      return { field: fieldOf(error.instancePath, params['missingProperty'] as string), message: 'is required' };
    case 'additionalProperties': {
      const name = params['additionalProperty'] as string;
      const message =
        where === 'query' ? 'is not a known query parameter' : READ_ONLY.has(name) ? 'is read-only' : 'is not a known field';
      return { field: fieldOf(error.instancePath, name), message };
    }
    case 'type':
      return { field, message: error.data === null ? 'must not be null' : `must be ${article(String(params['type']))}` };
    case 'enum': {
      const allowed = params['allowedValues'] as unknown[];
      return { field, message: allowed.length === 1 ? `must be ${allowed[0]}` : `must be one of ${allowed.join(', ')}` };
    }
    case 'minLength':
      return { field, message: `must be at least ${params['limit']} character${params['limit'] === 1 ? '' : 's'} long` };
    case 'maxLength':
      return { field, message: `must be at most ${params['limit']} characters long` };
    case 'minimum':
      return { field, message: `must be at least ${params['limit']}` };
    case 'maximum':
      return { field, message: `must be at most ${params['limit']}` };
    case 'pattern':
      return { field, message: params['pattern'] === NOT_BLANK ? 'must not be blank' : `must match ${params['pattern']}` };
    case 'format':
      return {
        field,
        message:
          params['format'] === 'date-time'
            ? 'must be an RFC 3339 date-time such as 2026-05-01T10:00:00Z'
            : 'must be a 64-bit integer',
      };
    case 'minProperties':
      return { field, message: 'must have at least one field' };
    case 'maxProperties':
      return { field, message: 'must be empty' };
    default:
      return { field, message: error.message ?? 'is not valid' };
  }
}

/** One message per field, the first: `""` is both too short and blank, and saying so once is enough. */
export function fieldErrors(errors: readonly ErrorObject[], where: Where): FieldError[] {
  const seen = new Set<string>();
  const result: FieldError[] = [];
  for (const error of errors) {
    const detail = describe(error, where);
    if (seen.has(detail.field)) continue;
    seen.add(detail.field);
    result.push(detail);
  }
  return result;
}

/**
 * Ids issued by the services stay below 2^53, so a larger (valid int64) id can match nothing.
 * It is forwarded as 2^53: exact, still nothing, and within every database integer type.
 */
const UNISSUED_ID = 2 ** 53;

function int64Fields(schema: Schema | undefined): string[] {
  const properties = (schema?.['properties'] ?? {}) as Record<string, Schema>;
  return Object.keys(properties).filter((name) => properties[name]['format'] === 'int64');
}

function clampIds(data: Record<string, unknown>, fields: readonly string[]): void {
  for (const field of fields) {
    const value = data[field];
    if (typeof value === 'number' && value > Number.MAX_SAFE_INTEGER) data[field] = UNISSUED_ID;
  }
}

// Operations without a body take none: nothing, or an empty JSON object from a client that always sends one.
const NoBody = { type: 'object', maxProperties: 0 };

export interface ValidatableRequest {
  params: unknown;
  query: unknown;
  body: unknown;
}

/**
 * The form of one operation's requests: path ids, query and body. `validate` answers what is
 * wrong, for all three at once, and on success leaves the request as the controller reads it:
 * the query coerced and defaulted, the body defaulted, ids beyond 2^53 clamped.
 */
export class RequestValidator {
  private readonly query?: ValidateFunction;
  private readonly body: ValidateFunction;
  private readonly queryIds: string[];
  private readonly bodyIds: string[];

  constructor(
    private readonly pathParams: readonly string[],
    private readonly querySchema: Schema | undefined,
    private readonly bodySchema: Schema | undefined,
  ) {
    this.query = querySchema && ajv.compile(querySchema);
    this.body = ajv.compile(bodySchema ?? NoBody);
    this.queryIds = int64Fields(querySchema);
    this.bodyIds = int64Fields(bodySchema);
  }

  validate(request: ValidatableRequest): FieldError[] {
    const details: FieldError[] = [];
    const params = (request.params ?? {}) as Record<string, unknown>;
    for (const name of this.pathParams) {
      if (!isPathId(params[name])) details.push({ field: name, message: 'must be a positive 64-bit integer' });
    }

    const rawQuery = (request.query ?? {}) as Record<string, unknown>;
    if (this.query && this.querySchema) {
      const query = coerceQuery(this.querySchema, rawQuery);
      if (this.query(query)) {
        clampIds(query, this.queryIds);
        request.query = query;
      } else details.push(...fieldErrors(this.query.errors ?? [], 'query'));
    } else {
      for (const name of Object.keys(rawQuery)) details.push({ field: name, message: 'is not a known query parameter' });
    }

    const body = request.body;
    if (body === undefined) {
      if (this.bodySchema) details.push({ field: 'body', message: 'is required' });
    } else if (this.body(body)) {
      if (this.bodySchema) clampIds(body as Record<string, unknown>, this.bodyIds);
    } else {
      details.push(...fieldErrors(this.body.errors ?? [], 'body'));
    }
    return details;
  }
}
