import type { Page } from '@petstore/contracts';

export const MAX_PAGE_SIZE = 100;
export const DEFAULT_PAGE_SIZE = 20;

/** The gateway validates the limit; a service still never reads an unbounded page. */
export function pageLimit(limit: number | undefined): number {
  if (limit === undefined || !Number.isInteger(limit) || limit < 1) return DEFAULT_PAGE_SIZE;
  return Math.min(limit, MAX_PAGE_SIZE);
}

/** The id after which a page starts; a missing or malformed cursor starts from the beginning. */
export function pageCursor(after: number | undefined): number {
  return after !== undefined && Number.isFinite(after) && after > 0 ? Math.floor(after) : 0;
}

/**
 * Queries fetch one row more than the page holds: its presence is the answer to
 * "is there a next page" without a count.
 */
export function pageOf<T>(rows: T[], limit: number): Page<T> {
  return { items: rows.slice(0, limit), hasMore: rows.length > limit };
}
