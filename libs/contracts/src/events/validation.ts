import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { InvalidEventError } from './invalid-event.error';

/*
 * Producers are strict and consumers are tolerant readers. Every schema says
 * `additionalProperties: false`: the strict instance rejects an unknown field (a producer
 * bug), the tolerant one strips it, so a consumer built against an older contract keeps
 * working when a producer adds an optional field.
 */
function createAjv(tolerant: boolean): Ajv {
  const ajv = new Ajv({ allErrors: true, strict: true, removeAdditional: tolerant ? true : false });
  addFormats(ajv, ['uuid', 'date-time']);
  return ajv;
}

const strictAjv = createAjv(false);
const tolerantAjv = createAjv(true);

export interface SchemaValidators<T> {
  /** For what this process produces: unknown fields are errors. */
  strict: ValidateFunction<T>;
  /** For what this process consumes: unknown fields are dropped. Mutates its input. */
  tolerant: ValidateFunction<T>;
}

/** Compiled once, when the module declaring the schema loads. */
export function compileSchema<T>(schema: object): SchemaValidators<T> {
  return { strict: strictAjv.compile<T>(schema), tolerant: tolerantAjv.compile<T>(schema) };
}

export function assertValid<T>(
  validate: ValidateFunction<T>,
  value: unknown,
  what: string,
  eventType?: string,
): asserts value is T {
  if (!validate(value)) {
    throw new InvalidEventError(`Invalid ${what}`, describeErrors(validate.errors), eventType);
  }
}

function describeErrors(errors: ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).map((error) => {
    const extra =
      error.keyword === 'additionalProperties'
        ? ` (${(error.params as { additionalProperty: string }).additionalProperty})`
        : error.keyword === 'enum'
          ? ` (${(error.params as { allowedValues: unknown[] }).allowedValues.join(', ')})`
          : '';
    return `${error.instancePath || '/'} ${error.message ?? error.keyword}${extra}`;
  });
}
