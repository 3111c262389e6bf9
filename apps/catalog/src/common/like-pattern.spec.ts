import { containsPattern, escapeLike } from './like-pattern';

describe('escapeLike', () => {
  it('leaves ordinary text alone', () => {
    expect(escapeLike('Rex the dog')).toBe('Rex the dog');
  });

  it('escapes the wildcards and the escape character', () => {
    expect(escapeLike('100%')).toBe('100\\%');
    expect(escapeLike('a_b')).toBe('a\\_b');
    expect(escapeLike('back\\slash')).toBe('back\\\\slash');
    expect(escapeLike('%_\\')).toBe('\\%\\_\\\\');
  });
});

describe('containsPattern', () => {
  it('matches the escaped text anywhere', () => {
    expect(containsPattern('x%')).toBe('%x\\%%');
    expect(containsPattern('')).toBe('%%');
  });
});
