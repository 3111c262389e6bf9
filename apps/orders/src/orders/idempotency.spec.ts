import type { Order } from '@petstore/contracts';
import { decideKeyUse, fingerprintHash, IDEMPOTENCY_KEY_TTL_MS, type StoredKey } from './idempotency';

const body = '{"petId":1,"quantity":2}';
const order: Order = { id: 7, petId: 1, quantity: 2, status: 'placed', complete: false };
const now = new Date('2026-11-22T12:00:00.000Z');

function stored(overrides: Partial<StoredKey> = {}): StoredKey {
  return { fingerprintHash: fingerprintHash(body), createdAt: new Date(now.getTime() - 60_000), response: order, ...overrides };
}

describe('decideKeyUse', () => {
  it('claims a key seen for the first time', () => {
    expect(decideKeyUse(undefined, body, now)).toEqual({ kind: 'claim' });
  });

  it('answers the same body within 24 hours with the first order', () => {
    expect(decideKeyUse(stored(), body, now)).toEqual({ kind: 'replay', order });
  });

  it('refuses the key with another body', () => {
    expect(decideKeyUse(stored(), '{"petId":1,"quantity":3}', now)).toEqual({ kind: 'reused' });
  });

  it('compares the canonical text exactly: the gateway already normalised key order', () => {
    expect(decideKeyUse(stored(), '{"quantity":2,"petId":1}', now)).toEqual({ kind: 'reused' });
  });

  it('treats a stored key without an answer as still in use', () => {
    expect(decideKeyUse(stored({ response: null }), body, now)).toEqual({ kind: 'in-use' });
  });

  it('lets a key older than 24 hours be claimed again, whatever the body', () => {
    const old = new Date(now.getTime() - IDEMPOTENCY_KEY_TTL_MS);
    expect(decideKeyUse(stored({ createdAt: old }), body, now)).toEqual({ kind: 'reclaim' });
    expect(decideKeyUse(stored({ createdAt: old }), '{"petId":2,"quantity":1}', now)).toEqual({ kind: 'reclaim' });
    const almost = new Date(now.getTime() - IDEMPOTENCY_KEY_TTL_MS + 1);
    expect(decideKeyUse(stored({ createdAt: almost }), body, now)).toEqual({ kind: 'replay', order });
  });

  it('hashes the fingerprint to a fixed-size value', () => {
    expect(fingerprintHash('x'.repeat(10_000))).toMatch(/^[0-9a-f]{64}$/);
    expect(fingerprintHash(body)).toBe(fingerprintHash(body));
  });
});
