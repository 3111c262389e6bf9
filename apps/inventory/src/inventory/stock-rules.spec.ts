import { decideReservation, mirrorsCatalogStatus, recomputeStatus, type EntryState } from './stock-rules';

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

describe('mirrorsCatalogStatus', () => {
  it('mirrors a status a client set', () => {
    expect(mirrorsCatalogStatus(null, null)).toBe(true);
    expect(mirrorsCatalogStatus(null, 'e-2')).toBe(true);
  });

  it('mirrors the echo of the latest recompute and ignores echoes of older ones', () => {
    expect(mirrorsCatalogStatus('e-2', 'e-2')).toBe(true);
    expect(mirrorsCatalogStatus('e-1', 'e-2')).toBe(false);
    expect(mirrorsCatalogStatus('e-1', null)).toBe(false);
  });
});
