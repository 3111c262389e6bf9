import { parsePathId } from './path-id';

describe('parsePathId', () => {
  it('reads positive decimal ids below 2^53', () => {
    expect(parsePathId('1')).toBe(1);
    expect(parsePathId('9007199254740991')).toBe(9007199254740991);
  });

  it('names no row for ids a JS number cannot hold exactly, or that are malformed', () => {
    expect(parsePathId('9007199254740993')).toBeUndefined();
    expect(parsePathId('9223372036854775807')).toBeUndefined();
    expect(parsePathId('0')).toBeUndefined();
    expect(parsePathId('01')).toBeUndefined();
    expect(parsePathId('-1')).toBeUndefined();
    expect(parsePathId('1.5')).toBeUndefined();
    expect(parsePathId(undefined)).toBeUndefined();
  });
});
