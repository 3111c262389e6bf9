import type { components } from './generated/api.js';

/** The API's Error object (API.md §4): `code` is one of the documented codes. */
export type ApiErrorBody = components['schemas']['Error'];
export type ApiErrorCode = ApiErrorBody['code'];

/** The API answered with an error status (after whatever retries that status allows). */
export class PetstoreApiError extends Error {
  readonly status: number;
  readonly code: ApiErrorCode;
  readonly body: ApiErrorBody;
  /** The key the order was placed with: send it again to learn what became of it. */
  readonly idempotencyKey?: string;

  constructor(body: ApiErrorBody, idempotencyKey?: string) {
    super(`${body.status} ${body.code}: ${body.message}`);
    this.name = 'PetstoreApiError';
    this.status = body.status;
    this.code = body.code;
    this.body = body;
    this.idempotencyKey = idempotencyKey;
    this.outcomeUnknown = body.status === 504 || body.code === 'IDEMPOTENCY_KEY_IN_USE';
  }

  /**
   * The request may have been carried out: this answer is a 504 or `IDEMPOTENCY_KEY_IN_USE` (a
   * request with the key still runs), or an earlier attempt of the call may have been (a 504, a
   * connection cut after sending). Send it again (an order with `idempotencyKey`) to learn.
   */
  outcomeUnknown: boolean;
}

/** No answer came: the connection failed, was cut, or the attempt or the deadline ran out. */
export class PetstoreConnectionError extends Error {
  /** `false` when the request certainly never reached a server (refused connection, unknown host). */
  readonly maybeSent: boolean;
  readonly idempotencyKey?: string;

  constructor(message: string, { maybeSent, cause, idempotencyKey }: { maybeSent: boolean; cause?: unknown; idempotencyKey?: string }) {
    super(message, { cause });
    this.name = 'PetstoreConnectionError';
    this.maybeSent = maybeSent;
    this.idempotencyKey = idempotencyKey;
    this.outcomeUnknown = maybeSent;
  }

  /** As for PetstoreApiError: this attempt or an earlier one may have been carried out. */
  outcomeUnknown: boolean;
}

/** The API's Error body when the answer carries one; otherwise one made from the status (a proxy's page, an empty body). */
export function errorBody(status: number, body: unknown, requestId: string | null): ApiErrorBody {
  if (body !== null && typeof body === 'object' && typeof (body as ApiErrorBody).code === 'string') return body as ApiErrorBody;
  const code: ApiErrorCode = status === 503 ? 'SERVICE_UNAVAILABLE' : status === 504 ? 'UPSTREAM_TIMEOUT' : status === 429 ? 'RATE_LIMITED' : status >= 500 ? 'INTERNAL_ERROR' : 'BAD_REQUEST';
  return { code, status, message: typeof body === 'string' && body ? body.slice(0, 200) : `HTTP ${status}`, ...(requestId && { requestId }) };
}
