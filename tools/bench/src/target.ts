// What the saga measurements place orders through: the stack's gateway or the saga floor.
import type { Pool } from 'pg';
import type { Processes } from './proc-cpu';

/** One order request as autocannon takes it: each request's body made when it leaves. */
export interface OrderRequest {
  method: 'POST';
  headers: Record<string, string>;
  setupRequest: (request: { body?: string }) => { body: string };
}

export interface Target {
  url: string;
  /** The database whose `table` records each order's placement and decision. */
  db: Pool;
  table: string;
  /** The processes whose CPU counts by name (the rest of the machine counts by kind). */
  processes: Processes;
  request: (extraHeaders?: Record<string, string>) => OrderRequest;
  /** Where placed → decided goes, for the orders placed since `since`. */
  stages?: (since: Date) => Promise<Record<string, { p50: number | null; p90: number | null }>>;
}

/** Order requests for `nextPetId()`'s pet, one unit each, with `headers`. */
export function orderRequest(headers: Record<string, string>, nextPetId: () => number) {
  return (extraHeaders: Record<string, string> = {}): OrderRequest => ({
    method: 'POST',
    headers: { ...headers, ...extraHeaders },
    setupRequest: (request) => ({ ...request, body: JSON.stringify({ petId: nextPetId(), quantity: 1 }) }),
  });
}

/**
 * `target` with every order on one pet: per-pet ordering puts all of them on one partition of
 * orders.order.v1, which one inventory replica handles, whatever the number of replicas.
 */
export function onOnePet(target: Target, petId: number): Target {
  return { ...target, stages: undefined, request: (extraHeaders = {}) => orderRequest(target.request(extraHeaders).headers, () => petId)() };
}

/** A JSON client of the gateway at `gateway` with `headers`; an answer that is not 2xx throws. */
export function apiClient(gateway: string, headers: Record<string, string>) {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return async (method: string, url: string, body?: unknown): Promise<any> => {
    const response = await fetch(`${gateway}${url}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${url} → ${response.status} ${text}`);
    return text ? JSON.parse(text) : undefined;
  };
}
