import { ERROR_STATUS, type ErrorCode, type FieldError, type RpcErrorBody } from '@petstore/contracts';
import type { FastifyReply } from 'fastify';

/** The document says a list holds at most this many items (API.md §3); `details` too. */
export const MAX_ITEMS = 100;

/**
 * A refusal the gateway answers with the Error object. Headers travel with it because some
 * statuses are defined together with one (`Allow` on 405, `Retry-After` on 429).
 */
export class ApiError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: FieldError[],
    readonly headers?: Readonly<Record<string, string>>,
    readonly status: number = ERROR_STATUS[code],
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** The Error object of the contract, as sent to clients: what a service refuses with, and the request id. */
  body(requestId: string): RpcErrorBody & { requestId: string } {
    return {
      status: this.status,
      code: this.code,
      message: this.message,
      ...(this.details && this.details.length > 0 && { details: this.details.slice(0, MAX_ITEMS) }),
      requestId,
    };
  }
}

export function validationFailed(details: FieldError[]): ApiError {
  const [first] = details;
  const more = details.length > 1 ? ` (and ${details.length - 1} more)` : '';
  const summary = first ? `: ${first.field} ${first.message}${more}` : '';
  return new ApiError('VALIDATION_FAILED', `The request does not match the contract${summary}`, details);
}

/** 404 for a path no route serves. */
export const nothingAt = (path: string): ApiError => new ApiError('NOT_FOUND', `There is nothing at ${path}`);

export const internalError = (): ApiError => new ApiError('INTERNAL_ERROR', 'Internal error');

/** Sends the Error object; the status and `requestId` always agree with the response. */
export function sendError(reply: FastifyReply, error: ApiError): void {
  reply.code(error.status).headers({ ...error.headers, 'content-type': 'application/json; charset=utf-8' });
  reply.send(JSON.stringify(error.body(reply.request.id)));
}

/** The path of a request target, without its query. */
export const pathOf = (url: string): string => url.split('?', 1)[0];
