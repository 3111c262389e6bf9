import type { FastifyReply } from 'fastify';
import type { ApiError } from './api-error';

/** Sends the Error object; the status and `requestId` always agree with the response. */
export function sendError(reply: FastifyReply, requestId: string, error: ApiError): void {
  if (error.headers) reply.headers(error.headers);
  reply
    .code(error.status)
    .header('content-type', 'application/json; charset=utf-8')
    .send(JSON.stringify(error.body(requestId)));
}

/** The path of a request target, without its query. */
export function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}
