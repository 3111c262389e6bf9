import type { ErrorCode, FieldError, RpcErrorBody } from '@petstore/contracts';

/**
 * A refusal that the client caused and can act on (404, 409, 422 …). Services throw it;
 * the RPC filter sends its body to the gateway, which answers with it unchanged.
 */
export class DomainError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly details?: FieldError[],
  ) {
    super(message);
    this.name = 'DomainError';
  }

  toRpcError(): RpcErrorBody {
    return { status: this.status, code: this.code, message: this.message, ...(this.details && { details: this.details }) };
  }
}
