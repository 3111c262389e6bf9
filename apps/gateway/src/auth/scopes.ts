type Area = 'catalog' | 'orders' | 'inventory';
export type Scope = `${Area}:${'read' | 'write'}` | '*';
export const SCOPES: readonly Scope[] = [...(['catalog', 'orders', 'inventory'] as const).flatMap((area) => [`${area}:read`, `${area}:write`] as const), '*'];

/** Path prefixes of each area (API.md §6), matched on whole segments: `/v1/petsitter` is no pet path. */
const AREAS: ReadonlyArray<readonly [string, Area]> = [
  ['/v1/pets', 'catalog'],
  ['/v1/categories', 'catalog'],
  ['/v2/pets', 'catalog'],
  ['/v1/store/orders', 'orders'],
  ['/v1/store/inventory', 'inventory'],
];

export const areaOf = (path: string): Area | undefined => AREAS.find(([prefix]) => path === prefix || path.startsWith(`${prefix}/`))?.[1];

/**
 * The scope a request needs: the `:read` scope of its area for GET (and HEAD, a GET without the
 * body), `:write` for anything else. Decided by the path alone, so an unknown path inside an
 * area is refused for a key without the area's scope before the 404/405 is revealed.
 */
export function requiredScope(method: string, path: string): Scope | undefined {
  const area = areaOf(path);
  return area && (method === 'GET' || method === 'HEAD' ? `${area}:read` : `${area}:write`);
}

/** `*` grants every scope; a `:write` scope does not imply the `:read` one. */
export function grants(scopes: ReadonlySet<string>, needed: Scope): boolean {
  return scopes.has('*') || scopes.has(needed);
}
