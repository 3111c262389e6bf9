import { DriverException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Injectable } from '@nestjs/common';
import type { IdempotencyKey, Order as OrderView } from '@petstore/contracts';
import { executePrepared } from '@petstore/database';
import { DomainError } from '@petstore/service-kit';
import { decideKeyUse, fingerprintHash, IDEMPOTENCY_KEY_TTL_MS } from './idempotency';

/**
 * How long a request waits for another one holding the same key before answering 409.
 * Short: the other request is the client's own retry, and the 409 tells it to come back.
 */
const KEY_LOCK_WAIT = '100ms';
const LOCK_NOT_AVAILABLE = '55P03';

interface KeyRow {
  fingerprint: string;
  response: OrderView | null;
  created_at: Date | string;
  now: Date | string;
}

export type KeyClaim = { kind: 'claimed' } | { kind: 'replay'; order: OrderView };

export function keyInUse(): DomainError {
  return new DomainError(409, 'IDEMPOTENCY_KEY_IN_USE', 'A request with this Idempotency-Key is still being processed');
}

/**
 * The key row is written first in the order's transaction. A concurrent request with the
 * same key then runs into the uncommitted row and, after a short lock wait, is answered
 * 409; if the first request fails its transaction rolls back and takes the key with it.
 */
@Injectable()
export class IdempotencyKeys {
  async claim(em: EntityManager, { scope, key, fingerprint }: IdempotencyKey): Promise<KeyClaim> {
    const hash = fingerprintHash(fingerprint);
    await executePrepared(em, `set local lock_timeout = '${KEY_LOCK_WAIT}'`);
    const claim = await this.tryClaim(em, scope, key, hash, fingerprint);
    await executePrepared(em, 'set local lock_timeout to default');
    return claim;
  }

  async remember(em: EntityManager, { scope, key }: IdempotencyKey, order: OrderView): Promise<void> {
    await executePrepared(em, 'update idempotency_key set order_id = ?, response = ?::jsonb where scope = ? and key = ?', [
      order.id,
      JSON.stringify(order),
      scope,
      key,
    ]);
  }

  private async tryClaim(em: EntityManager, scope: string, key: string, hash: string, fingerprint: string): Promise<KeyClaim> {
    const inserted = await executePrepared(
      em,
      'insert into idempotency_key (scope, key, fingerprint) values (?, ?, ?) on conflict (scope, key) do nothing returning key',
      [scope, key, hash],
    );
    if (inserted.length > 0) return { kind: 'claimed' };

    const [row] = await executePrepared<KeyRow>(
      em,
      'select fingerprint, response, created_at, now() as now from idempotency_key where scope = ? and key = ?',
      [scope, key],
    );
    const stored = row && { fingerprintHash: row.fingerprint, createdAt: new Date(row.created_at), response: row.response };
    const use = decideKeyUse(stored, fingerprint, row ? new Date(row.now) : new Date());
    switch (use.kind) {
      case 'claim':
      case 'in-use':
        throw keyInUse();
      case 'reused':
        throw new DomainError(422, 'IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used with another request body');
      case 'replay':
        return { kind: 'replay', order: use.order };
      case 'reclaim': {
        // An expired key starts over; the condition makes a concurrent reclaim of the same key lose instead of overwrite.
        const reclaimed = await executePrepared(
          em,
          `update idempotency_key set fingerprint = ?, order_id = null, response = null, created_at = now()
           where scope = ? and key = ? and created_at <= now() - ?::interval returning key`,
          [hash, scope, key, `${IDEMPOTENCY_KEY_TTL_MS} milliseconds`],
        );
        if (reclaimed.length === 0) throw keyInUse();
        return { kind: 'claimed' };
      }
    }
  }
}

/** A lock wait on another request's key row ran out: that request is still running. */
export function isKeyLockTimeout(error: unknown): boolean {
  return error instanceof DriverException && error.code === LOCK_NOT_AVAILABLE;
}
