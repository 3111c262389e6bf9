import type { Page } from '@petstore/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * The `Link` to the next page: the same path and query as the request, in the client's
 * order, with `after` replaced by the last id of this page. Relative, as RFC 8288 allows, and
 * built from the path alone (an absolute-form target's authority is dropped on arrival).
 */
export function nextPageLink(requestUrl: string, lastId: number): string {
  const [path, search] = requestUrl.split(/\?(.*)/s);
  const query = new URLSearchParams(search);
  query.delete('after');
  query.append('after', String(lastId));
  return `<${path}?${query.toString()}>; rel="next"`;
}

/** Answers a page: its items, and `Link: …; rel="next"` while more remain. */
export function sendPage<T>(request: FastifyRequest, reply: FastifyReply, page: Page<T>, idOf: (item: T) => number): T[] {
  const last = page.items[page.items.length - 1];
  if (page.hasMore && last !== undefined) reply.header('link', nextPageLink(request.url, idOf(last)));
  return page.items;
}
