import type { ErrorCode, Page } from '@petstore/contracts';
import type { FastifyReply, FastifyRequest, RouteGenericInterface, RouteOptions } from 'fastify';
import { nextPageLink } from '../common/paging';
import { EmptyBody, input, pathParameters, ref, type Schema } from '../common/schemas';
import { responsesOf, type ResponseHeader } from './openapi';

/**
 * One operation of the API, declared once: Fastify validates requests against its schemas,
 * @fastify/swagger documents it from the same route, and the request gate reads its
 * deprecation from the route config (its scope follows from its path).
 */
export interface Operation<R extends RouteGenericInterface = RouteGenericInterface> {
  /** Method and Fastify path, with `:name` for the path ids: `GET /v1/pets/:petId`. Store paths are tagged `Store`, the others `Pets`. */
  route: `${'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'} /${string}`;
  operationId: string;
  summary: string;
  description: string;
  /** Success status; also the status the handler answers with. */
  status: 200 | 201 | 204;
  /** Success body (none for 204). */
  response?: { $id: string };
  /** A creation's `Location`: where the resource the handler answers with can be read. */
  location?: (created: { id: number }) => string;
  /** A list's cursor: the handler answers the service's page; its items are sent, with a `Link` to the page after this field of the last. */
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
  handle(request: FastifyRequest<R>, reply: FastifyReply): Promise<unknown>;
}

/** The route generic of an operation on one resource: `PathId<'petId'>` for `/v1/pets/:petId`, whose id is text. */
export type PathId<K extends string> = { Params: Record<K, string> };

declare module 'fastify' {
  interface FastifyContextConfig {
    /** What the request gate sends and checks for a deprecated operation (its scope follows from its path). */
    deprecation?: Operation['deprecation'] & { sunset: Date };
  }
}

export function toRoute(operation: Operation, sunset: Date): RouteOptions {
  const [method, url] = operation.route.split(' ');
  const schema = {
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
    ...(operation.deprecation && { deprecated: true, 'x-sunset': sunset.toISOString().replace(/\.000Z$/, 'Z') }),
    ...(operation.stability && { 'x-stability-level': operation.stability }),
  };
  const { status, location, pagedBy, handle } = operation;
  return {
    method,
    url,
    schema,
    config: { deprecation: operation.deprecation && { ...operation.deprecation, sunset } },
    handler: async (request, reply) => {
      const result = await handle(request, reply);
      if (location) reply.header('location', location(result as { id: number }));
      reply.code(status);
      if (!pagedBy) return status === 204 ? reply.send() : result;
      const { items, hasMore } = result as Page<Record<string, number>>;
      if (hasMore && items.length > 0) reply.header('link', nextPageLink(request.url, items[items.length - 1][pagedBy]));
      return items;
    },
  };
}
