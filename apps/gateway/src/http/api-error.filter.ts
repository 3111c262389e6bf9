import { ArgumentsHost, Catch, HttpException, Logger, NotFoundException, type ExceptionFilter } from '@nestjs/common';
import { errorCodes, type FastifyReply, type FastifyRequest } from 'fastify';
import { ApiError, internalError, nothingAt, pathOf, sendError, validationFailed } from './api-error';
import { requestFormDetails } from './validation';

/**
 * Fastify's own refusals of a body, as Nest hands them over: it turns every FastifyError into an
 * HttpException with the error's message and status, so they are known by their message.
 */
const FASTIFY_REFUSALS = new Map<string, ApiError>([
  [new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE().message, new ApiError('PAYLOAD_TOO_LARGE', 'The request body is larger than 64 KiB')],
  [new errorCodes.FST_ERR_CTP_INVALID_CONTENT_LENGTH().message, new ApiError('BAD_REQUEST', 'The request body does not match its Content-Length')],
]);

/**
 * The one exception filter, for every route and for what fails before a handler runs (body
 * reading, validation): every error leaves as the Error object; bugs are logged and answered
 * 500 without their text.
 */
@Catch()
export class ApiErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('Gateway');

  catch(error: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    // A client that went away mid-request gets no answer.
    if (request.raw.socket?.destroyed) return;
    sendError(http.getResponse<FastifyReply>(), this.toApiError(error, request));
  }

  private toApiError(error: unknown, request: FastifyRequest): ApiError {
    // A part of the request broke its schema: Fastify stops at the first part, the answer names every problem.
    if ((error as { validationContext?: unknown }).validationContext !== undefined) return validationFailed(requestFormDetails(request));
    if (error instanceof ApiError) return error;
    // Nest's own not-found handler: the request gate answers every path no route serves, except
    // a target that is not a path (`*`, `*v1/pets`), which Nest's adapter sends there once authenticated.
    if (error instanceof NotFoundException) return nothingAt(pathOf(request.url));
    const refusal = error instanceof HttpException ? FASTIFY_REFUSALS.get(error.message) : undefined;
    if (refusal) return refusal;
    this.logger.error(`${request.method} ${pathOf(request.url)} [${request.id}] failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    return internalError();
  }
}
