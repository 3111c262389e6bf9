/**
 * Path ids arrive as decimal strings up to 2^63-1. Ids the services issue stay below 2^53,
 * so a larger one cannot exist; it must not be rounded to a JS number that might.
 * Returns undefined for an id that cannot name a row.
 */
export function parsePathId(id: string | number | undefined): number | undefined {
  const text = typeof id === 'number' ? String(id) : id;
  if (text === undefined || !/^[1-9][0-9]{0,18}$/.test(text)) return undefined;
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : undefined;
}

/** Ids in bodies are JSON numbers; one that is not a safe positive integer names no row either. */
export function isIssuableId(id: number): boolean {
  return Number.isSafeInteger(id) && id > 0;
}
