import { Catch, HttpException, Logger, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, internalError } from './api-error';
import { routeNotFound } from './route-not-found';
import { pathOf, sendError } from './send-error';

/**
 * Every error leaves as the Error object: the gateway's own (`ApiError`), a service's refusal
 * (already an `ApiError`, see `Upstream`), what Fastify refuses while reading the body, the
 * not-found route, and bugs, which are logged here and answered 500 without their text.
 */
@Catch()
export class ErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('Gateway');

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    const error = this.toApiError(exception, request);
    if (reply.sent) return;
    sendError(reply, request.id, error);
  }

  private toApiError(exception: unknown, request: FastifyRequest): ApiError {
    if (exception instanceof ApiError) return exception;
    if (exception instanceof HttpException) {
      // Nest's not-found route, and Fastify's body errors (Nest wraps them, keeping the status).
      switch (exception.getStatus()) {
        case 404:
          return routeNotFound(request);
        case 413:
          return new ApiError('PAYLOAD_TOO_LARGE', 'The request body is larger than 64 KiB');
        case 415:
          return new ApiError('UNSUPPORTED_CONTENT_TYPE', 'The request body must be JSON (application/json)');
        case 400:
          return new ApiError('VALIDATION_FAILED', 'The request body does not match its Content-Length');
      }
    }
    this.logger.error(
      `${request.method} ${pathOf(request.url)} [${request.id}] failed: ${exception instanceof Error ? (exception.stack ?? exception.message) : String(exception)}`,
    );
    return internalError();
  }
}
