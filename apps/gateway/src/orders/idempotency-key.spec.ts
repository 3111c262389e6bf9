import { ApiError } from '../http/api-error';
import { IDEMPOTENCY_KEY_PATTERN, parseIdempotencyKey } from './idempotency-key';

describe('parseIdempotencyKey', () => {
  it('takes a bare or a quoted key as the same key', () => {
    expect(parseIdempotencyKey('order-1')).toBe('order-1');
    expect(parseIdempotencyKey('"order-1"')).toBe('order-1');
    expect(parseIdempotencyKey('  "order-1" ')).toBe('order-1');
    expect(parseIdempotencyKey('8e03978e-40d5-43e8-bc93-6894a57f9324')).toBe('8e03978e-40d5-43e8-bc93-6894a57f9324');
  });

  it('unescapes a quoted key', () => {
    expect(parseIdempotencyKey('"a\\"b\\\\c"')).toBe('a"b\\c');
  });

  it('has no key when the header is absent', () => {
    expect(parseIdempotencyKey(undefined)).toBeUndefined();
  });

  it('accepts 255 characters, quoted or not', () => {
    expect(parseIdempotencyKey('k'.repeat(255))).toHaveLength(255);
    expect(parseIdempotencyKey(`"${'k'.repeat(255)}"`)).toHaveLength(255);
  });

  it.each([
    ['empty', ''],
    ['an empty quoted string', '""'],
    ['blank', '   '],
    ['256 characters', 'k'.repeat(256)],
    ['256 characters quoted', `"${'k'.repeat(256)}"`],
    ['an unbalanced quote', '"abc'],
    ['a stray quote', 'ab"c'],
    ['a control character', 'a\u0001b'],
    ['non-ASCII', 'clé'],
  ])('refuses %s with 400 VALIDATION_FAILED', (_, header) => {
    let error: unknown;
    try {
      parseIdempotencyKey(header);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(400);
    expect((error as ApiError).code).toBe('VALIDATION_FAILED');
    expect((error as ApiError).details?.[0].field).toBe('Idempotency-Key');
  });
});

describe('IDEMPOTENCY_KEY_PATTERN (the document says what the API takes)', () => {
  const pattern = new RegExp(IDEMPOTENCY_KEY_PATTERN);
  const accepted = (header: string) => {
    try {
      return parseIdempotencyKey(header) !== undefined;
    } catch {
      return false;
    }
  };

  it.each([
    'order-1', '"order-1"', 'a b', '"a b"', 'k'.repeat(255), `"${'k'.repeat(255)}"`, `"${'\\"'.repeat(255)}"`, 'a\\b', '"a\\\\b"',
    '', '""', ' ', '" a"', '"a "', 'k'.repeat(256), `"${'k'.repeat(256)}"`, `"${'\\"'.repeat(256)}"`, '"abc', 'ab"c', '"a"b"', '"a\\b"', 'clé', 'a\u0001b', '"\\"',
  ])('matches %p exactly when the API takes it', (header) => {
    expect(pattern.test(header)).toBe(accepted(header));
  });
});
