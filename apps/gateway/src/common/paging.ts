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
