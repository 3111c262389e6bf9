import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { ApiError } from './api-error';
import { requestIdFor } from './request-id';

/** Longer request targets are refused with 414 (API.md §4); Node's 16 KiB header limit is the outer bound. */
export const MAX_URL_LENGTH = 8 * 1024;

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

/** The Error object as a whole response, for the refusals that Node answers before Fastify sees the request. */
function errorResponse(refusal: ApiError, requestId: string): [body: string, headers: Record<string, string | number>] {
  const body = JSON.stringify(refusal.body(requestId));
  return [body, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body), 'X-Request-Id': requestId, Connection: 'close' }];
}

/** Node refuses a request it cannot parse or that did not arrive in time before Fastify sees it. */
export function clientErrorHandler(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writable && !answeredBeforeBody.has(socket)) {
    const refusal = refusalOf(error);
    const [body, headers] = errorResponse(refusal, requestIdFor(undefined));
    const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
    socket.write(`HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status]}\r\n${head.join('')}\r\n${body}`);
  }
  socket.destroy();
}

/** Node's `checkExpectation`: an `Expect` other than `100-continue` is 417 with the Error object. */
export function expectationFailed(request: IncomingMessage, response: ServerResponse): void {
  const refusal = new ApiError('BAD_REQUEST', `Expect: ${request.headers.expect} cannot be met`, undefined, undefined, 417);
  const [body, headers] = errorResponse(refusal, requestIdFor(request.headers['x-request-id']));
  response.writeHead(417, headers).end(body);
}
