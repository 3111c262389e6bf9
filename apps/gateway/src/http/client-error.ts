import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import { ApiError } from './api-error';

/**
 * Node refuses a request it cannot parse (broken request line, headers over the limit)
 * before Fastify sees it. The answer still is the Error object with an `X-Request-Id`;
 * the status stays the one HTTP defines for the case.
 */
export function clientErrorHandler(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writable) {
    const requestId = randomUUID();
    const [status, reason, message] =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'Request Header Fields Too Large', 'The request headers are too large']
        : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? [408, 'Request Timeout', 'The request was not received in time']
          : [400, 'Bad Request', 'The request is not valid HTTP'];
    const body = JSON.stringify(new ApiError('VALIDATION_FAILED', message, undefined, undefined, status).body(requestId));
    socket.write(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
