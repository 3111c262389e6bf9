import { isIssuableId, parsePathId } from './path-id';

describe('parsePathId', () => {
  it('reads a positive decimal id', () => {
    expect(parsePathId('1')).toBe(1);
    expect(parsePathId('9007199254740991')).toBe(9007199254740991);
  });

  it('refuses ids a JS number cannot hold exactly', () => {
    expect(parsePathId('9007199254740992')).toBeUndefined();
    expect(parsePathId('9007199254740993')).toBeUndefined();
    expect(parsePathId('9223372036854775807')).toBeUndefined();
  });

  it('refuses what is not a positive decimal integer', () => {
    for (const id of ['', '0', '-1', '01', '1.5', '1e3', ' 1', 'abc', '99999999999999999999']) {
      expect(parsePathId(id)).toBeUndefined();
    }
    expect(parsePathId(undefined)).toBeUndefined();
  });

  it('accepts a number as well, for callers that already parsed it', () => {
    expect(parsePathId(7)).toBe(7);
    expect(parsePathId(2 ** 53)).toBeUndefined();
  });
});

describe('isIssuableId', () => {
  it('accepts safe positive integers only', () => {
    expect(isIssuableId(1)).toBe(true);
    expect(isIssuableId(0)).toBe(false);
    expect(isIssuableId(2 ** 53)).toBe(false);
    expect(isIssuableId(1.5)).toBe(false);
  });
});
