import { Catch, Logger, type ArgumentsHost } from '@nestjs/common';
import { BaseExceptionFilter } from '@nestjs/core';
import type { RpcErrorBody } from '@petstore/contracts';
import { isDatabaseUnavailable } from '@petstore/database';
import { throwError, type Observable } from 'rxjs';
import { DomainError } from './domain-error';

const internalError: RpcErrorBody = { status: 500, code: 'INTERNAL_ERROR', message: 'Internal error' };
const databaseUnavailable: RpcErrorBody = {
  status: 503,
  code: 'SERVICE_UNAVAILABLE',
  message: 'The service cannot reach its database; nothing was changed, try again shortly',
};

/**
 * Turns whatever a message handler throws into the RPC error body; bugs never leak their
 * text, and a database out of reach is a 503, not a bug. HTTP (only the health endpoints)
 * keeps Nest's default handling.
 */
@Catch()
export class RpcErrorFilter extends BaseExceptionFilter {
  private readonly logger = new Logger('RpcErrorFilter');

  override catch(error: unknown, host: ArgumentsHost): Observable<never> | void {
    if (host.getType() !== 'rpc') return super.catch(error, host);
    const body = rpcErrorBodyOf(error);
    if (body === databaseUnavailable) this.logger.warn(`Database unavailable: ${error instanceof Error ? error.message : String(error)}`);
    if (body === internalError) this.logger.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    return throwError(() => body);
  }
}

/** What the gateway receives for an error a message handler threw. */
export function rpcErrorBodyOf(error: unknown): RpcErrorBody {
  if (error instanceof DomainError) return error.toRpcError();
  if (isDatabaseUnavailable(error)) return databaseUnavailable;
  return internalError;
}
