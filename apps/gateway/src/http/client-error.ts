import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { ApiError } from './api-error';
import { requestIdFor } from './request-id';

/** Longer request targets are refused with 414 (API.md §4); Node's 16 KiB header limit is the outer bound. */
export const MAX_URL_LENGTH = 8 * 1024;

const REASONS: Record<number, string> = { 400: 'Bad Request', 408: 'Request Timeout', 414: 'URI Too Long', 431: 'Request Header Fields Too Large' };

function refusalOf(error: NodeJS.ErrnoException & { rawPacket?: Buffer }): ApiError {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return new ApiError('REQUEST_TIMEOUT', 'The request was not received in time');
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    // Node counts the request line as a header: a line that never ended within the limit is the URL.
    const lineEnd = error.rawPacket?.indexOf('\r\n') ?? -1;
    return lineEnd === -1 || lineEnd > MAX_URL_LENGTH
      ? new ApiError('URI_TOO_LONG', `The request target is longer than ${MAX_URL_LENGTH} characters`)
      : new ApiError('HEADERS_TOO_LARGE', 'The request headers are too large');
  }
  return new ApiError('BAD_REQUEST', 'The request is not valid HTTP');
}

/** Sockets whose request was answered before its body was read: a body that then stalls gets no second answer. */
export const answeredBeforeBody = new WeakSet<Socket>();

/**
 * Node refuses a request it cannot parse or that did not arrive in time before Fastify sees
 * it. The answer still is the Error object with an `X-Request-Id`.
 */
export function clientErrorHandler(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writable && !answeredBeforeBody.has(socket)) {
    const refusal = refusalOf(error);
    const requestId = requestIdFor(undefined);
    const body = JSON.stringify(refusal.body(requestId));
    socket.write(
      `HTTP/1.1 ${refusal.status} ${REASONS[refusal.status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

/** Node's `checkExpectation`: an `Expect` other than `100-continue` is 417 with the Error object. */
export function expectationFailed(request: IncomingMessage, response: ServerResponse): void {
  const requestId = requestIdFor(request.headers['x-request-id']);
  const refusal = new ApiError('BAD_REQUEST', `Expect: ${request.headers.expect} cannot be met`, undefined, undefined, 417);
  const body = JSON.stringify(refusal.body(requestId));
  response.writeHead(417, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), 'x-request-id': requestId, connection: 'close' });
  response.end(body);
}
