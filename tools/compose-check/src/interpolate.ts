/**
 * The subset of Compose variable interpolation this repository's compose file uses,
 * with Compose's semantics: `$$` is a literal `$`; `${NAME}` and `$NAME` substitute
 * (empty when unset); `:-`/`-` give a default when unset-or-empty/unset; `:?`/`?`
 * fail when unset-or-empty/unset; `:+`/`+` substitute an alternative when set.
 * Nested expressions inside a default are not supported.
 */
export type Env = Record<string, string | undefined>;

export interface Reference {
  name: string;
  /** '' for a plain `${NAME}` or `$NAME`. */
  operator: '' | ':-' | '-' | ':?' | '?' | ':+' | '+';
  argument: string;
}

export class MissingVariableError extends Error {
  constructor(
    readonly variable: string,
    detail: string,
  ) {
    super(`required variable ${variable} is missing a value: ${detail}`);
  }
}

const PATTERN = /\$(?:(\$)|\{([A-Za-z_][A-Za-z0-9_]*)(?:(:-|-|:\?|\?|:\+|\+)([^}]*))?\}|([A-Za-z_][A-Za-z0-9_]*))/g;

export function references(text: string): Reference[] {
  const found: Reference[] = [];
  for (const match of text.matchAll(PATTERN)) {
    if (match[1]) continue;
    const name = match[2] ?? match[5];
    found.push({ name, operator: (match[3] ?? '') as Reference['operator'], argument: match[4] ?? '' });
  }
  return found;
}

export function interpolate(text: string, env: Env): string {
  if (/\$\{[^}]*\$\{/.test(text)) throw new Error(`nested interpolation is not supported: ${text}`);
  return text.replace(PATTERN, (_whole, dollar, braced, operator, argument, bare) => {
    if (dollar) return '$';
    const name: string = braced ?? bare;
    const value = env[name];
    const set = value !== undefined;
    const nonEmpty = set && value !== '';
    switch (operator) {
      case ':-':
        return nonEmpty ? value : argument;
      case '-':
        return set ? value : argument;
      case ':?':
        if (!nonEmpty) throw new MissingVariableError(name, argument);
        return value;
      case '?':
        if (!set) throw new MissingVariableError(name, argument);
        return value;
      case ':+':
        return nonEmpty ? argument : '';
      case '+':
        return set ? argument : '';
      default:
        return value ?? '';
    }
  });
}

/** Interpolates every string in a parsed compose document (keys are left alone, as Compose does for service names). */
export function interpolateDeep<T>(value: T, env: Env): T {
  if (typeof value === 'string') return interpolate(value, env) as T;
  if (Array.isArray(value)) return value.map((item) => interpolateDeep(item, env)) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, interpolateDeep(item, env)])) as T;
  }
  return value;
}
