import { decideReservation, catalogStatusAction, recomputeStatus, type EntryState } from './stock-rules';

const entry = (overrides: Partial<EntryState> = {}): EntryState => ({
  status: 'available',
  quantity: 5,
  deleted: false,
  ...overrides,
});

describe('decideReservation', () => {
  it('reserves from an available pet with enough free units', () => {
    expect(decideReservation(entry(), 2)).toEqual({ kind: 'reserve', remaining: 3 });
    expect(decideReservation(entry(), 5)).toEqual({ kind: 'reserve', remaining: 0 });
  });

  it('rejects a pet without an entry, or whose entry is gone, as unknown', () => {
    expect(decideReservation(undefined, 1)).toEqual({ kind: 'reject', reason: 'UNKNOWN_PET' });
    expect(decideReservation(entry({ deleted: true }), 1)).toEqual({ kind: 'reject', reason: 'UNKNOWN_PET' });
  });

  it('rejects a pet that is not available, whatever its stock', () => {
    expect(decideReservation(entry({ status: 'pending' }), 1)).toEqual({ kind: 'reject', reason: 'PET_NOT_AVAILABLE' });
    expect(decideReservation(entry({ status: 'sold', quantity: 100 }), 1)).toEqual({
      kind: 'reject',
      reason: 'PET_NOT_AVAILABLE',
    });
  });

  it('rejects an order larger than the free stock', () => {
    expect(decideReservation(entry({ quantity: 1 }), 2)).toEqual({ kind: 'reject', reason: 'INSUFFICIENT_STOCK' });
    expect(decideReservation(entry({ quantity: 0 }), 1)).toEqual({ kind: 'reject', reason: 'INSUFFICIENT_STOCK' });
  });

  it('gives the first reason that applies', () => {
    expect(decideReservation(entry({ deleted: true, status: 'sold', quantity: 0 }), 1)).toEqual({
      kind: 'reject',
      reason: 'UNKNOWN_PET',
    });
    expect(decideReservation(entry({ status: 'sold', quantity: 0 }), 1)).toEqual({
      kind: 'reject',
      reason: 'PET_NOT_AVAILABLE',
    });
  });
});

describe('recomputeStatus', () => {
  it('makes a pet with free units available', () => {
    expect(recomputeStatus(1, false)).toBe('available');
    expect(recomputeStatus(1, true)).toBe('available');
  });

  it('makes a pet without free units pending while an approved order is open, else sold', () => {
    expect(recomputeStatus(0, true)).toBe('pending');
    expect(recomputeStatus(0, false)).toBe('sold');
  });
});

describe('catalogStatusAction', () => {
  const clientSet = (occurredAt: string) => ({ causationId: null, occurredAt });
  const echoOf = (causationId: string) => ({ causationId, occurredAt: '2026-11-24T10:00:00.000Z' });

  it('mirrors a status a client set', () => {
    expect(
      catalogStatusAction(clientSet('2026-11-24T10:00:00.000Z'), { lastRecomputeEventId: null, stockChangedAt: null }),
    ).toBe('mirror');
    const entry = { lastRecomputeEventId: 'e-2', stockChangedAt: new Date('2026-11-24T09:59:59.999Z') };
    expect(catalogStatusAction(clientSet('2026-11-24T10:00:00.000Z'), entry)).toBe('mirror');
  });

  it("keeps and publishes again the status recomputed by a stock change after the client's", () => {
    const entry = { lastRecomputeEventId: 'e-2', stockChangedAt: new Date('2026-11-24T10:00:00.001Z') };
    expect(catalogStatusAction(clientSet('2026-11-24T10:00:00.000Z'), entry)).toBe('answer');
  });

  it('mirrors the echo of the latest recompute and ignores echoes of older ones', () => {
    const now = new Date('2026-11-24T10:00:01.000Z');
    expect(catalogStatusAction(echoOf('e-2'), { lastRecomputeEventId: 'e-2', stockChangedAt: now })).toBe('mirror');
    expect(catalogStatusAction(echoOf('e-1'), { lastRecomputeEventId: 'e-2', stockChangedAt: now })).toBe('ignore');
    expect(catalogStatusAction(echoOf('e-1'), { lastRecomputeEventId: null, stockChangedAt: null })).toBe('ignore');
  });

  it('takes neither status over a change of stock or open orders earlier in the same batch', () => {
    const changedNow = { lastRecomputeEventId: 'e-2', stockChangedAt: null, stockChanged: true };
    expect(catalogStatusAction(echoOf('e-2'), changedNow)).toBe('ignore');
    expect(catalogStatusAction(clientSet('2026-11-24T10:00:00.000Z'), changedNow)).toBe('answer');
  });
});
