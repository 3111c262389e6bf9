import type { FastifyRequest, HTTPMethods } from 'fastify';
import { ApiError } from './api-error';
import { pathOf } from './send-error';

const METHODS: HTTPMethods[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/** For a request no route serves: 405 with `Allow` when the path is served with other methods, else 404. */
export function routeNotFound(request: FastifyRequest): ApiError {
  const path = pathOf(request.url);
  const allowed = METHODS.filter((method) => request.server.findRoute({ method, url: path }) !== null);
  if (allowed.length > 0 && !allowed.includes(request.method as HTTPMethods)) {
    return new ApiError('METHOD_NOT_ALLOWED', `${request.method} is not allowed on ${path}`, undefined, {
      allow: allowed.join(', '),
    });
  }
  return new ApiError('NOT_FOUND', `There is nothing at ${path}`);
}
