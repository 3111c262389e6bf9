/** The longest a client may ask the gateway to hold an answer (API.md §9). */
export const MAX_WAIT_SECONDS = 10;

// A quoted string (skipped whole, commas and all), a separator, or `name[=value]`.
const TOKEN = /"(?:[^"\\]|\\.)*"|[,;]|([^\s=;,"]+)(?:\s*=\s*("(?:[^"\\]|\\.)*"|[^\s;,"]*))?/g;

/**
 * The seconds of `Prefer: wait=<seconds>` (RFC 7240): 1–10, a larger value counting as 10;
 * undefined for no wait (absent, 0, not a number). Other preferences and their parameters are
 * ignored, and of several `wait`s the first counts.
 */
export function preferredWait(header: string | string[] | undefined): number | undefined {
  if (header === undefined) return undefined;
  let atPreference = true;
  for (const [token, name, value] of [header].flat().join(',').matchAll(TOKEN)) {
    if (token === ',' || token === ';') {
      atPreference = token === ',';
      continue;
    }
    if (!atPreference || name === undefined) continue;
    atPreference = false;
    if (name.toLowerCase() !== 'wait') continue;
    const seconds = (value ?? '').replace(/^"(.*)"$/, '$1');
    return /^\d+$/.test(seconds) && Number(seconds) > 0 ? Math.min(Number(seconds), MAX_WAIT_SECONDS) : undefined;
  }
  return undefined;
}
