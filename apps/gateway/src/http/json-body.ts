import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError, validationFailed } from './api-error';

/** `application/json` and `application/*+json` (Fastify hands over the normalized, lower-case type). */
export const JSON_MEDIA_TYPE = /^application\/(?:[a-z0-9!#$&^_.-]+\+)?json(?:\s*;|$)/;

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Parses a JSON body: empty means no body; otherwise strict UTF-8 (RFC 8259; a `charset`
 * parameter does not change it) and JSON, or 400 `INVALID_JSON`.
 */
export function parseJsonBody(raw: Buffer): unknown {
  if (raw.length === 0) return undefined;
  try {
    return JSON.parse(utf8.decode(raw));
  } catch (error) {
    // The decoder refuses bytes with a TypeError, JSON.parse text with a SyntaxError.
    throw new ApiError('INVALID_JSON', `The request body is not valid ${error instanceof SyntaxError ? 'JSON' : 'UTF-8'}`);
  }
}

/**
 * Fastify reads the body (its `bodyLimit`, 64 KiB: 413) and hands it to these. Its JSON parser is not
 * used because it decodes bytes that are not UTF-8 into U+FFFD instead of refusing them. JSON
 * media types are parsed as above (`null` alone is no body: 400); a body of any other type is
 * read to the end, so that 413 still comes first, and refused with 400 `UNSUPPORTED_CONTENT_TYPE`.
 */
export function registerBodyParsers(fastify: FastifyInstance): void {
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser(JSON_MEDIA_TYPE, { parseAs: 'buffer' }, async (_: FastifyRequest, body: Buffer) => {
    const value = parseJsonBody(body);
    if (value === null) throw validationFailed([{ field: 'body', message: 'must not be null' }]);
    return value;
  });
  fastify.addContentTypeParser('*', { parseAs: 'buffer' }, async (_: FastifyRequest, body: Buffer) => {
    if (body.length > 0) throw new ApiError('UNSUPPORTED_CONTENT_TYPE', 'The request body must be JSON (application/json)');
  });
}
