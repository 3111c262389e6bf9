import type { FieldError } from '@petstore/contracts';
import { EmptyBody, Id, input, ref, type Schema } from '../common/schemas';
import { validatorCompiler } from '../http/validation';

type Part = 'params' | 'querystring' | 'body';
type Compiled = (data: unknown) => { error?: { details: FieldError[] }; value?: unknown };

let routes = 0;

/**
 * One operation's request form, checked by the gateway's own validator compiler exactly as
 * Fastify runs it (path, then query, then body), without a server: for the schema specs.
 */
export class RequestValidator {
  private readonly parts: Array<[Part, Compiled]>;

  constructor(pathParams: readonly string[], query: Schema | undefined, body: Schema | undefined) {
    const url = `/schema-spec/${(routes += 1)}`;
    const asRef = (schema: Schema) => (typeof schema['$id'] === 'string' ? ref(schema as { $id: string }) : schema);
    const part = (httpPart: Part, schema: Schema): [Part, Compiled] => [httpPart, validatorCompiler({ schema, method: 'POST', url, httpPart }) as Compiled];
    this.parts = [
      part('params', { type: 'object', properties: Object.fromEntries(pathParams.map((name) => [name, Id])) }),
      part('querystring', query ?? input()),
      part('body', asRef(body ?? EmptyBody)),
    ];
  }

  /** Every problem; on success the request is left as the handler reads it (query coerced, defaults filled, ids clamped). */
  validate(request: { params: unknown; query: unknown; body: unknown }): FieldError[] {
    const details: FieldError[] = [];
    for (const [part, check] of this.parts) {
      const key = part === 'querystring' ? 'query' : part;
      const result = check(key === 'body' ? (request.body ?? null) : request[key]);
      if (result.error) details.push(...result.error.details);
      else if (result.value !== undefined && result.value !== null) request[key] = result.value;
    }
    return details;
  }
}
