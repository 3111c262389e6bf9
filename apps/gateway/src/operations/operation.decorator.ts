import { applyDecorators, HttpCode, SetMetadata } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import type { ErrorCode } from '@petstore/contracts';
import type { Schema } from './schema';

export const OPERATION = 'petstore:operation';

/** Response headers the document describes (see `openapi.builder.ts`). */
export type ResponseHeader = 'Location' | 'Link' | 'Idempotent-Replayed';

export interface HeaderParameter {
  name: string;
  description: string;
  schema: Schema;
}

/**
 * What the gateway knows about one operation, declared once beside its handler: the request
 * validator, the request gate (scopes, deprecation) and the OpenAPI document all read it.
 */
export interface OperationSpec {
  operationId: string;
  tag: 'Pets' | 'Store';
  summary: string;
  description?: string;
  /** Success status; also the status the handler answers with. */
  status: 200 | 201 | 204;
  /** Success body (none for 204). */
  response?: Schema;
  responseHeaders?: ResponseHeader[];
  query?: Schema;
  body?: Schema;
  /** Media types of the body; `application/json` when not given. */
  bodyTypes?: string[];
  headers?: HeaderParameter[];
  /** Codes the operation's resource can answer with (404, 409, 422 …); the gateway's own are added. */
  errors?: ErrorCode[];
  deprecation?: {
    /** RFC 9745 `Deprecation`: when the operation became deprecated. */
    since: string;
    /** Path template of the successor, with the operation's path parameters. */
    successor: string;
  };
  stability?: 'beta' | 'experimental';
}

/** Route config that the Fastify hooks read without a lookup by URL. */
export interface GatewayRouteConfig {
  operationId?: string;
  public?: boolean;
  /** Set by Fastify: the route's path, absent on the not-found route. */
  url?: string;
}

export function Operation(spec: OperationSpec): MethodDecorator {
  const config: GatewayRouteConfig = { operationId: spec.operationId };
  return applyDecorators(SetMetadata(OPERATION, spec), RouteConfig(config), HttpCode(spec.status));
}

/** Outside the API surface: no API key, not in the document (health, docs, the document itself). */
export function Public(): MethodDecorator {
  const config: GatewayRouteConfig = { public: true };
  return applyDecorators(RouteConfig(config));
}
