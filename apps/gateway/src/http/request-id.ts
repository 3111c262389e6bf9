import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The request id of API.md §4: the client's `X-Request-Id` when it is 1–128 characters of
 * `A-Z a-z 0-9 . _ : -`, otherwise a new one. Anything else could smuggle text into logs and
 * into the events' correlation ids.
 */
export function requestIdFor(header: string | string[] | undefined): string {
  return typeof header === 'string' && CLIENT_REQUEST_ID.test(header) ? header : randomUUID();
}

/** Fastify's `genReqId`: the id becomes `request.id`, so it is decided once, before routing. */
export function genReqId(raw: IncomingMessage): string {
  return requestIdFor(raw.headers['x-request-id']);
}
