import { ApiError, validationFailed } from '../http/api-error';

const MAX_LENGTH = 255;
// Visible ASCII and inner spaces: what an HTTP field value can carry without ambiguity.
const KEY = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;
const QUOTED = /^"((?:[^"\\]|\\["\\])*)"$/;

/**
 * The `Idempotency-Key` header (draft-ietf-httpapi-idempotency-key-header): an sf-string
 * (`"k"`) or the bare key (`k`), the same key either way; 1–255 characters once unquoted.
 * Absent → undefined; anything else → 400 `VALIDATION_FAILED`.
 */
export function parseIdempotencyKey(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  const refuse = (message: string): ApiError => validationFailed([{ field: 'Idempotency-Key', message }]);
  if (Array.isArray(header)) throw refuse('must be sent once');
  const value = header.trim();
  const quoted = QUOTED.exec(value);
  const key = quoted ? quoted[1].replace(/\\(["\\])/g, '$1') : value;
  if (key.length === 0 || key.length > MAX_LENGTH) throw refuse(`must be 1–${MAX_LENGTH} characters`);
  if (!KEY.test(key) || (!quoted && value.includes('"'))) throw refuse('must be visible ASCII characters, optionally in double quotes');
  return key;
}
