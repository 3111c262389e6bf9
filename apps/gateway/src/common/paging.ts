import type { FastifyReply } from 'fastify';
import type { Page } from '@petstore/contracts';

/**
 * The `Link` to the next page: the same path and query as the request, in the client's
 * order, with `after` replaced by the last id of this page. Relative, as RFC 8288 allows.
 */
export function nextPageLink(requestUrl: string, lastId: number): string {
  const queryStart = requestUrl.indexOf('?');
  const path = queryStart === -1 ? requestUrl : requestUrl.slice(0, queryStart);
  const query = new URLSearchParams(queryStart === -1 ? '' : requestUrl.slice(queryStart + 1));
  query.delete('after');
  query.append('after', String(lastId));
  return `<${path}?${query.toString()}>; rel="next"`;
}

/** Answers a page: its items, and `Link: …; rel="next"` while more remain. */
export function sendPage<T>(reply: FastifyReply, requestUrl: string, page: Page<T>, idOf: (item: T) => number): T[] {
  const last = page.items[page.items.length - 1];
  if (page.hasMore && last !== undefined) reply.header('link', nextPageLink(requestUrl, idOf(last)));
  return page.items;
}
