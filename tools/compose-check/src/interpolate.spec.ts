import { interpolate, MissingVariableError, references } from './interpolate';

describe('interpolate (Compose semantics)', () => {
  const env = { SET: 'value', EMPTY: '' };

  it('substitutes plain references, empty when unset', () => {
    expect(interpolate('a ${SET} $SET ${NOPE}.', env)).toBe('a value value .');
  });

  it('applies defaults for unset (-) or unset-or-empty (:-) variables', () => {
    expect(interpolate('${NOPE:-d} ${EMPTY:-d} ${SET:-d}', env)).toBe('d d value');
    expect(interpolate('${NOPE-d} ${EMPTY-d}', env)).toBe('d ');
    expect(interpolate('${NOPE:--Xms1m -Xmx2m}', env)).toBe('-Xms1m -Xmx2m');
  });

  it('fails on required variables that are unset (?) or unset-or-empty (:?)', () => {
    expect(() => interpolate('${EMPTY:?must be set}', env)).toThrow(MissingVariableError);
    expect(() => interpolate('${NOPE?must be set}', env)).toThrow('NOPE');
    expect(interpolate('${EMPTY?must be set}', env)).toBe('');
    expect(interpolate('x${SET:?must be set}y', env)).toBe('xvaluey');
  });

  it('substitutes alternatives only when set', () => {
    expect(interpolate('${SET:+alt}|${EMPTY:+alt}|${EMPTY+alt}|${NOPE+alt}', env)).toBe('alt||alt|');
  });

  it('reads $$ as a literal dollar sign', () => {
    expect(interpolate('$${SET} $$SET', env)).toBe('${SET} $SET');
    expect(references('$${SET} $$SET ${A:?x} $B')).toEqual([
      { name: 'A', operator: ':?', argument: 'x' },
      { name: 'B', operator: '', argument: '' },
    ]);
  });
});
