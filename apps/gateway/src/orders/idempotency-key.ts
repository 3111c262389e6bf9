import { ApiError, validationFailed } from '../http/api-error';

// A key character is visible ASCII; spaces only inside. Quoted, `"` and `\` are escaped.
const BARE = String.raw`[\x21\x23-\x7e](?:[\x20\x21\x23-\x7e]{0,253}[\x21\x23-\x7e])?`;
const EDGE = String.raw`(?:[\x21\x23-\x5b\x5d-\x7e]|\\["\\])`;
const INNER = String.raw`(?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\["\\])`;

/** Exactly the values of `Idempotency-Key` the API takes: the document's schema uses it too. */
export const IDEMPOTENCY_KEY_PATTERN = `^(?:${BARE}|"${EDGE}(?:${INNER}{0,253}${EDGE})?")$`;
const KEY = new RegExp(IDEMPOTENCY_KEY_PATTERN);

/**
 * The `Idempotency-Key` header (draft-ietf-httpapi-idempotency-key-header): an sf-string
 * (`"k"`) or the bare key (`k`), the same key either way; 1–255 characters once unquoted.
 * Absent → undefined; sent twice or anything else → 400 `VALIDATION_FAILED`.
 */
export function parseIdempotencyKey(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  const refuse = (message: string): ApiError => validationFailed([{ field: 'Idempotency-Key', message }]);
  if (Array.isArray(header)) throw refuse('must be sent once');
  const value = header.trim();
  if (!KEY.test(value)) throw refuse('must be 1–255 visible ASCII characters (spaces only inside), optionally in double quotes');
  return value.startsWith('"') ? value.slice(1, -1).replace(/\\(["\\])/g, '$1') : value;
}
