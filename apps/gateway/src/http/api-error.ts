import type { ErrorCode, FieldError } from '@petstore/contracts';

/** The HTTP status each code is answered with (API.md §4). The OpenAPI document groups codes by it. */
export const ERROR_STATUS: Readonly<Record<ErrorCode, number>> = {
  INVALID_JSON: 400,
  UNSUPPORTED_CONTENT_TYPE: 400,
  VALIDATION_FAILED: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  PET_NOT_FOUND: 404,
  CATEGORY_NOT_FOUND: 404,
  ORDER_NOT_FOUND: 404,
  INVENTORY_ITEM_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CATEGORY_NAME_TAKEN: 409,
  CATEGORY_IN_USE: 409,
  ORDER_NOT_APPROVED: 409,
  ORDER_NOT_CANCELLABLE: 409,
  IDEMPOTENCY_KEY_IN_USE: 409,
  ENDPOINT_SUNSET: 410,
  PAYLOAD_TOO_LARGE: 413,
  UNKNOWN_PET: 422,
  UNKNOWN_CATEGORY: 422,
  IDEMPOTENCY_KEY_REUSED: 422,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
  UPSTREAM_TIMEOUT: 504,
};

/** The Error object of the contract, as sent to clients. */
export interface ErrorBody {
  status: number;
  code: ErrorCode;
  message: string;
  details?: FieldError[];
  requestId: string;
}

/**
 * A refusal the gateway answers with the Error object. Headers travel with it because some
 * statuses are defined together with one (`Allow` on 405, `Retry-After` on 429).
 */
export class ApiError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: FieldError[],
    readonly headers?: Readonly<Record<string, string>>,
    status?: number,
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = status ?? ERROR_STATUS[code];
  }

  body(requestId: string): ErrorBody {
    return {
      status: this.status,
      code: this.code,
      message: this.message,
      ...(this.details && this.details.length > 0 && { details: this.details }),
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

export const internalError = (): ApiError => new ApiError('INTERNAL_ERROR', 'Internal error');
