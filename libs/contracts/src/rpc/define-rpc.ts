import type { ValidateFunction } from 'ajv';
import type { FieldError } from '../errors';
import { compileSchema } from '../events/validation';
import type { RpcRequest } from './rpc';

/** The processes that answer RPC: the gateway calls them over the TCP transport. */
export type RpcService = 'catalog' | 'orders' | 'inventory';

/**
 * One request/response message between the gateway and a service: its pattern, the service
 * that answers it, and (as types) its request and its reply. The sender's reply type and the
 * handler's signature both follow from this one value, so they cannot drift apart.
 */
export interface RpcDefinition<TRequest extends RpcRequest = RpcRequest, TReply = unknown> {
  /** What Nest's TCP transport routes by: `@MessagePattern(pattern)` and `client.send(pattern, …)`. */
  readonly pattern: { readonly cmd: string };
  /** Undefined for patterns every service answers (the health check). */
  readonly service: RpcService | undefined;
  /** JSON Schema of the request, where the service checks it rather than trusting the gateway. */
  readonly requestSchema: object | undefined;
  /** Problems with a request, by the schema (none without one). */
  check(request: unknown): FieldError[];
  /** Never set: carries the types for `RequestOf` and `ReplyOf`. */
  readonly types?: { request: TRequest; reply: TReply };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyRpcDefinition = RpcDefinition<any, any>;
export type RequestOf<D> = D extends RpcDefinition<infer Q, unknown> ? Q : never;
export type ReplyOf<D> = D extends RpcDefinition<RpcRequest, infer R> ? R : never;

/**
 * `defineRpc<ById, Pet>()('catalog', 'pets.get')`: curried so that the request and reply types
 * are given and the rest inferred. A `requestSchema` is compiled once, when the contract loads;
 * it is tolerant of fields it does not list (a newer gateway may send more).
 */
export function defineRpc<TRequest extends RpcRequest, TReply>() {
  return (service: RpcService | undefined, cmd: string, requestSchema?: object): RpcDefinition<TRequest, TReply> => {
    const validate: ValidateFunction | undefined = requestSchema && compileSchema(requestSchema).strict;
    return Object.freeze({
      pattern: Object.freeze({ cmd }),
      service,
      requestSchema,
      check(request: unknown): FieldError[] {
        if (!validate || validate(request)) return [];
        return (validate.errors ?? []).map((error) => ({
          field: error.instancePath.split('/').filter(Boolean).join('.') || 'request',
          message: error.message ?? 'is not valid',
        }));
      },
    });
  };
}

/** `{ listPets: { cmd: 'pets.list' }, … }` from a group of definitions, for `@MessagePattern` and test stand-ins. */
export function patternsOf<T extends Record<string, AnyRpcDefinition>>(definitions: T): { readonly [K in keyof T]: { readonly cmd: string } } {
  return Object.fromEntries(Object.entries(definitions).map(([name, definition]) => [name, definition.pattern])) as {
    [K in keyof T]: { readonly cmd: string };
  };
}
