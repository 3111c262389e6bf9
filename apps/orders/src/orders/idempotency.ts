import { createHash } from 'node:crypto';
import type { Order as OrderView } from '@petstore/contracts';

/** API.md §7: a key answers the same body again for 24 hours; after that it may be used afresh. */
export const IDEMPOTENCY_KEY_TTL_MS = 24 * 60 * 60 * 1000;

/** What is kept of a key's first request. */
export interface StoredKey {
  fingerprintHash: string;
  createdAt: Date;
  /** The order as the first request answered it; missing only while that request has not committed. */
  response: OrderView | null;
}

export type KeyUse =
  | { kind: 'claim' }
  | { kind: 'reclaim' }
  | { kind: 'replay'; order: OrderView }
  | { kind: 'reused' }
  | { kind: 'in-use' };

/**
 * The gateway sends the canonical JSON of the body (same value in any key order gives the
 * same text); a hash of it is stored so a row has a fixed size whatever the body.
 */
export function fingerprintHash(fingerprint: string): string {
  return createHash('sha256').update(fingerprint, 'utf8').digest('hex');
}

/** How a request carrying a key that may already be stored is answered. */
export function decideKeyUse(stored: StoredKey | undefined, fingerprint: string, now: Date): KeyUse {
  if (!stored) return { kind: 'claim' };
  if (now.getTime() - stored.createdAt.getTime() >= IDEMPOTENCY_KEY_TTL_MS) return { kind: 'reclaim' };
  if (stored.fingerprintHash !== fingerprintHash(fingerprint)) return { kind: 'reused' };
  if (!stored.response) return { kind: 'in-use' };
  return { kind: 'replay', order: stored.response };
}
