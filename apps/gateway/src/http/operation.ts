import { applyDecorators, HttpCode, RequestMapping, RequestMethod } from '@nestjs/common';
import { RouteConfig, RouteSchema } from '@nestjs/platform-fastify';
import type { ErrorCode, Page } from '@petstore/contracts';
import type { FastifyReply, FastifyRequest, FastifySchema } from 'fastify';
import { nextPageLink } from '../common/paging';
import { EmptyBody, input, pathParameters, ref, type Schema } from '../common/schemas';
import { responsesOf, type ResponseHeader } from './openapi';

/**
 * One operation of the API, declared once and put on its controller method with `@Endpoint`:
 * Fastify validates requests against its schemas, @fastify/swagger documents it from the same
 * route, and the request gate reads its deprecation from the route config (its scope follows
 * from its path).
 */
export interface Operation {
  /** Method and Fastify path, with `:name` for the path ids: `GET /v1/pets/:petId`. Store paths are tagged `Store`, the others `Pets`. */
  route: `${'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'} /${string}`;
  operationId: string;
  summary: string;
  description: string;
  /** Success status; also the status the handler answers with. */
  status: 200 | 201 | 204;
  /** Success body (none for 204). */
  response?: { $id: string };
  /** A creation's `Location`: where the resource the handler answers with can be read (`created`). */
  location?: (created: { id: number }) => string;
  /** A list's cursor: the handler answers the service's page through `paged`, with a `Link` to the page after this field of the last item. */
  pagedBy?: 'id' | 'petId';
  responseHeaders?: ResponseHeader[];
  query?: Schema;
  body?: { $id: string };
  /** Media types of the body in the document; `application/json` when not given. */
  bodyTypes?: string[];
  /** Header parameters, parsed by the handler that reads them. */
  headers?: Record<string, Schema>;
  /** Codes the operation's resource can answer with (404, 409, 422 …); the gateway's own are added. */
  errors?: ErrorCode[];
  deprecation?: {
    /** RFC 9745 `Deprecation`: when the operation became deprecated. */
    since: string;
    /** Path of the successor, with the operation's path parameters. */
    successor: string;
  };
  stability?: 'beta' | 'experimental';
}

/** A request to one resource: `PathId<'petId'>` for `/v1/pets/:petId`, whose id is text. */
export type PathId<K extends string> = FastifyRequest<{ Params: Record<K, string> }>;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** What the request gate sends and checks for a deprecated operation; the sunset is configuration, added at registration (`withSunset`). */
    deprecation?: Operation['deprecation'] & { sunset: Date };
  }
}

/** The route schema of an operation: what Fastify validates and @fastify/swagger documents. */
function schemaOf(operation: Operation, method: string, url: string): FastifySchema {
  return {
    operationId: operation.operationId,
    tags: [url.startsWith('/v1/store/') ? 'Store' : 'Pets'],
    summary: operation.summary,
    description: operation.description,
    params: pathParameters(url),
    querystring: operation.query ?? input(),
    ...(method !== 'GET' && { body: ref(operation.body ?? EmptyBody) }),
    ...(operation.bodyTypes && { consumes: operation.bodyTypes }),
    ...(operation.headers && { headers: { type: 'object', properties: operation.headers } }),
    response: responsesOf(operation),
    security: [{ bearerAuth: [] }],
    ...(operation.deprecation && { deprecated: true }),
    ...(operation.stability && { 'x-stability-level': operation.stability }),
  } as FastifySchema;
}

/** Maps a controller method to the operation: its route, success status, route schema and route config. */
export function Endpoint(operation: Operation): MethodDecorator {
  const [method, url] = operation.route.split(' ');
  return applyDecorators(
    RequestMapping({ method: RequestMethod[method as keyof typeof RequestMethod], path: url }),
    HttpCode(operation.status),
    RouteSchema(schemaOf(operation, method, url)),
    RouteConfig(operation.deprecation ? { deprecation: operation.deprecation } : {}),
  );
}

/**
 * Fastify's `onRoute` hook that dates a deprecated operation's sunset from the configuration:
 * the route config the gate reads, and the document's `x-sunset` (whole seconds, as configured).
 */
export function withSunset(sunset: Date) {
  return (route: { schema?: FastifySchema; config?: { deprecation?: Operation['deprecation'] } }): void => {
    const deprecation = route.config?.deprecation;
    if (!deprecation) return;
    route.config = { ...route.config, deprecation: { ...deprecation, sunset } } as typeof route.config;
    route.schema = { ...route.schema, 'x-sunset': sunset.toISOString().replace(/\.000Z$/, 'Z') } as FastifySchema;
  };
}

/** What a creation answers: the resource, with its `Location`. */
export function created<T extends { id: number }>(operation: Operation, reply: FastifyReply, resource: T): T {
  if (operation.location) reply.header('location', operation.location(resource));
  return resource;
}

/** What a list answers: the page's items, with a `Link` to the next page while more remain. */
export function paged<T extends object>(operation: Operation, request: FastifyRequest, reply: FastifyReply, page: Page<T>): T[] {
  const { items, hasMore } = page;
  const last = items[items.length - 1] as Partial<Record<string, number>> | undefined;
  if (hasMore && operation.pagedBy && last?.[operation.pagedBy] !== undefined) reply.header('link', nextPageLink(request.url, last[operation.pagedBy] as number));
  return items;
}
