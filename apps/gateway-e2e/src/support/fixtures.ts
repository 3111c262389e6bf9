import { createHash, randomBytes } from 'node:crypto';
import { api, eventually, stackState } from './stack';

export type ApiResponse = Awaited<ReturnType<typeof api>>;

/** A catalog reader and an orders reader, beside the development key that has every scope. */
export const READER_KEY = 'reader-key-0123456789';
/** Configured by its SHA-256 only, as production keys may be. */
export const HASHED_KEY = 'hashed-key-0123456789';

/** `API_KEYS` of the e2e stack: the development key keeps working, the other two test the scopes. */
export function apiKeysEnv(devKey: string): string {
  return JSON.stringify([
    { name: 'dev', key: devKey, scopes: ['*'] },
    { name: 'reader', key: READER_KEY, scopes: ['catalog:read'] },
    { name: 'hashed', sha256: createHash('sha256').update(HASHED_KEY).digest('hex'), scopes: ['orders:read'] },
  ]);
}

export function bearer(key: string): { authorization: string } {
  return { authorization: `Bearer ${key}` };
}

/**
 * The Error object of API.md §4, and nothing else: `{code, message, status}` with `status` equal
 * to the HTTP status, `requestId` equal to `X-Request-Id`, `details` only as `[{field, message}]`,
 * as JSON, never a stack trace or SQL.
 */
export function expectError(response: ApiResponse, status: number, code: string): void {
  expect({ status: response.status, code: response.body?.code }).toEqual({ status, code });
  expect(response.headers.get('content-type')).toMatch(/^application\/json\b/);
  const { code: _code, message, status: bodyStatus, details, requestId, ...rest } = response.body as Record<string, unknown>;
  expect(rest).toEqual({});
  expect(bodyStatus).toBe(status);
  expect(typeof message === 'string' && message.length > 0).toBe(true);
  expect(requestId).toBe(response.headers.get('x-request-id'));
  if (details !== undefined) {
    expect(Array.isArray(details) && details.length > 0).toBe(true);
    for (const detail of details as unknown[]) {
      expect(detail).toEqual({ field: expect.any(String), message: expect.any(String) });
    }
  }
  expect(response.text).not.toMatch(/\n\s+at |\bat .+:\d+:\d+\)|node_modules|\bSELECT\b|\bINSERT INTO\b|\bUPDATE\s+"?\w+"?\s+SET\b/);
}

/** `details` of a VALIDATION_FAILED answer, by field. */
export function detailFields(response: ApiResponse): string[] {
  return ((response.body?.details ?? []) as Array<{ field: string }>).map((detail) => detail.field);
}

/**
 * The target of `Link: <…>; rel="next"` as a path with query, if any. The reference may be
 * relative (RFC 8288), so it is resolved against the request's own path.
 */
export function nextLink(response: ApiResponse, requestPath: string): string | undefined {
  const link = response.headers.get('link');
  if (!link) return undefined;
  for (const part of link.split(/,(?=\s*<)/)) {
    const match = /^\s*<([^>]*)>(.*)$/.exec(part);
    if (match && /;\s*rel="?([^";]*\s)?next(\s[^";]*)?"?\s*(;|$)/i.test(match[2])) {
      const url = new URL(match[1], `${stackState().gatewayUrl}${requestPath}`);
      return `${url.pathname}${url.search}`;
    }
  }
  return undefined;
}

/** Walks a list from `path` by following the next links until there is none; answers each page. */
export async function allPages(path: string, maxPages = 50): Promise<ApiResponse[]> {
  const pages: ApiResponse[] = [];
  let next: string | undefined = path;
  while (next !== undefined) {
    if (pages.length === maxPages) throw new Error(`more than ${maxPages} pages from ${path}`);
    const response = await api('GET', next);
    expect(response.status).toBe(200);
    pages.push(response);
    next = nextLink(response, next);
  }
  return pages;
}

/** Names unique per call: the e2e databases live for the whole run, shared by every suite. */
export function uniqueName(prefix: string): string {
  return `${prefix} ${randomBytes(4).toString('hex')}`;
}

export async function createCategory(name = uniqueName('Category')): Promise<{ id: number; name: string }> {
  const response = await api('POST', '/v1/categories', { body: { name } });
  expect(response.status).toBe(201);
  return response.body;
}

export async function createPet(fields: { name?: string; categoryId?: number; status?: string } = {}): Promise<{
  id: number;
  name: string;
  categoryId: number;
  status: string;
}> {
  const categoryId = fields.categoryId ?? (await createCategory()).id;
  const response = await api('POST', '/v1/pets', { body: { name: uniqueName('Pet'), ...fields, categoryId } });
  expect(response.status).toBe(201);
  return response.body;
}

export async function setStock(petId: number, quantity: number): Promise<void> {
  const response = await api('PUT', `/v1/store/inventory/${petId}`, { body: { quantity } });
  expect(response.status).toBe(200);
}

export async function placeOrder(petId: number, quantity: number, headers: Record<string, string> = {}) {
  return api('POST', '/v1/store/orders', { body: { petId, quantity }, headers });
}

/** Waits until the order has left `placed` and answers it. */
export async function decided(orderId: number, timeoutMs = 10_000) {
  const response = await eventually(
    () => api('GET', `/v1/store/orders/${orderId}`),
    (r) => r.status === 200 && r.body.status !== 'placed',
    timeoutMs,
  );
  return response.body;
}

export async function inventoryOf(petId: number) {
  return (await api('GET', `/v1/store/inventory/${petId}`)).body as { petId: number; quantity: number; status: string };
}

/** Waits until the inventory entry and the pet (its catalog status and /v2 details) agree on `status`. */
export async function converged(petId: number, status: string, quantity?: number): Promise<void> {
  await eventually(
    async () => {
      const [item, details] = await Promise.all([api('GET', `/v1/store/inventory/${petId}`), api('GET', `/v2/pets/${petId}`)]);
      return { item: item.body, details: details.body };
    },
    ({ item, details }) =>
      item?.status === status &&
      details?.status === status &&
      details?.inventory?.status === status &&
      (quantity === undefined || (item.quantity === quantity && details.inventory.quantity === quantity)),
  );
}
