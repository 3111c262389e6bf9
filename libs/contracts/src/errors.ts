/**
 * The error codes of the public contract (API.md §4) and the HTTP status each is answered
 * with (one exception: `BAD_REQUEST` is 417 for an `Expect` that cannot be met). Services
 * raise them over RPC; the gateway returns them unchanged in the Error body, and its OpenAPI
 * document groups them by status.
 */
export const ERROR_STATUS = {
  BAD_REQUEST: 400,
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
  REQUEST_TIMEOUT: 408,
  CATEGORY_NAME_TAKEN: 409,
  CATEGORY_IN_USE: 409,
  ORDER_NOT_APPROVED: 409,
  ORDER_NOT_CANCELLABLE: 409,
  IDEMPOTENCY_KEY_IN_USE: 409,
  ENDPOINT_SUNSET: 410,
  PAYLOAD_TOO_LARGE: 413,
  URI_TOO_LONG: 414,
  UNSUPPORTED_CONTENT_ENCODING: 415,
  UNKNOWN_PET: 422,
  UNKNOWN_CATEGORY: 422,
  IDEMPOTENCY_KEY_REUSED: 422,
  RATE_LIMITED: 429,
  HEADERS_TOO_LARGE: 431,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
  UPSTREAM_TIMEOUT: 504,
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof ERROR_STATUS;

export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

export interface FieldError {
  field: string;
  message: string;
}

/** What a service sends back over RPC when a command or query fails. */
export interface RpcErrorBody {
  status: number;
  code: ErrorCode;
  message: string;
  details?: FieldError[];
}

export function isRpcErrorBody(value: unknown): value is RpcErrorBody {
  if (typeof value !== 'object' || value === null) return false;
  const body = value as Partial<RpcErrorBody>;
  return (
    typeof body.status === 'number' &&
    typeof body.message === 'string' &&
    (ERROR_CODES as readonly string[]).includes(body.code as string)
  );
}
