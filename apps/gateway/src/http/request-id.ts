import { randomUUID } from 'node:crypto';

const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The request id of API.md §4: the client's `X-Request-Id` when it is 1–128 characters of
 * `A-Z a-z 0-9 . _ : -`, otherwise a new one. Anything else could smuggle text into logs and
 * into the events' correlation ids.
 */
export function requestIdFor(header: string | string[] | undefined): string {
  return typeof header === 'string' && CLIENT_REQUEST_ID.test(header) ? header : randomUUID();
}
