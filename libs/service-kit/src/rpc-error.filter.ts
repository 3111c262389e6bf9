import { Catch, Logger, type RpcExceptionFilter } from '@nestjs/common';
import type { RpcErrorBody } from '@petstore/contracts';
import { throwError, type Observable } from 'rxjs';
import { DomainError } from './domain-error';

const internalError: RpcErrorBody = { status: 500, code: 'INTERNAL_ERROR', message: 'Internal error' };

/** Turns whatever a message handler throws into the RPC error body; bugs never leak their text. */
@Catch()
export class RpcErrorFilter implements RpcExceptionFilter<unknown> {
  private readonly logger = new Logger('RpcErrorFilter');

  catch(error: unknown): Observable<never> {
    if (error instanceof DomainError) return throwError(() => error.toRpcError());
    this.logger.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    return throwError(() => internalError);
  }
}
