/**
 * The error codes of the public contract (API.md §4). Services raise them over RPC;
 * the gateway returns them unchanged in the Error body.
 */
export const ERROR_CODES = [
  'INVALID_JSON',
  'UNSUPPORTED_CONTENT_TYPE',
  'VALIDATION_FAILED',
  'UNAUTHORIZED',
  'FORBIDDEN',
  'NOT_FOUND',
  'PET_NOT_FOUND',
  'CATEGORY_NOT_FOUND',
  'ORDER_NOT_FOUND',
  'INVENTORY_ITEM_NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'CATEGORY_NAME_TAKEN',
  'CATEGORY_IN_USE',
  'ORDER_NOT_APPROVED',
  'ORDER_NOT_CANCELLABLE',
  'IDEMPOTENCY_KEY_IN_USE',
  'ENDPOINT_SUNSET',
  'PAYLOAD_TOO_LARGE',
  'UNKNOWN_PET',
  'UNKNOWN_CATEGORY',
  'IDEMPOTENCY_KEY_REUSED',
  'RATE_LIMITED',
  'INTERNAL_ERROR',
  'SERVICE_UNAVAILABLE',
  'UPSTREAM_TIMEOUT',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

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
