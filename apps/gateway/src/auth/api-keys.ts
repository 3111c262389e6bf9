import { ConfigError, nodeEnv, type Reader } from '@petstore/config';
import { hash, timingSafeEqual } from 'node:crypto';
import { SCOPES, type Scope } from './scopes';

/** One entry of `API_KEYS`: the key itself or its SHA-256 (hex), never both. */
export interface ApiKeyConfig {
  name: string;
  key?: string;
  sha256?: string;
  scopes: Scope[];
}

/** Who sent a request: the key's name (never the secret) and what it may do. */
export interface ApiPrincipal {
  readonly name: string;
  readonly scopes: ReadonlySet<string>;
}

/** The documented key of a development stack; never accepted in production (see `apiKeys`). */
export const DEV_API_KEY: ApiKeyConfig = { name: 'dev', key: 'dev-key-0123456789', scopes: ['*'] };

// A bearer token is token68 (RFC 6750 §2.1); anything else could not be sent in the header.
const TOKEN68 = /^[A-Za-z0-9\-._~+/]+=*$/;
const SHA256_HEX = /^[0-9a-fA-F]{64}$/;
const NAME = /^[A-Za-z0-9._:-]{1,64}$/;
const matches = (value: unknown, pattern: RegExp): value is string => typeof value === 'string' && pattern.test(value);

/** Reads the JSON of `API_KEYS`; the message of an error names the variable and the entry at fault. */
export function parseApiKeys(json: string): ApiKeyConfig[] {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    // Refused below, like any other value that is not an array.
  }
  if (!Array.isArray(value)) throw new ConfigError('API_KEYS', 'must be a JSON array of { name, key | sha256, scopes }');
  const names = new Set<string>();
  return value.map((entry: unknown, index) => {
    const problem = (text: string) => new ConfigError('API_KEYS', `entry ${index}: ${text}`);
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) throw problem('must be an object');
    const { name, key, sha256, scopes, ...rest } = entry as Record<string, unknown>;
    const unknown = Object.keys(rest);
    if (unknown.length > 0) throw problem(`unknown field ${unknown.join(', ')}`);
    if (!matches(name, NAME)) throw problem('name must be 1–64 characters of A-Z a-z 0-9 . _ : -');
    if (names.has(name)) throw problem(`name "${name}" is used twice`);
    names.add(name);
    if ((key === undefined) === (sha256 === undefined)) throw problem('needs exactly one of key and sha256');
    if (key !== undefined && !matches(key, TOKEN68)) throw problem('key must be a bearer token (A-Z a-z 0-9 - . _ ~ + / and trailing =)');
    if (sha256 !== undefined && !matches(sha256, SHA256_HEX)) throw problem('sha256 must be 64 hexadecimal digits');
    if (!Array.isArray(scopes) || scopes.length === 0) throw problem('scopes must be a non-empty array');
    const unknownScope = scopes.find((scope) => !(SCOPES as readonly unknown[]).includes(scope));
    if (unknownScope !== undefined) throw problem(`unknown scope ${JSON.stringify(unknownScope)}`);
    return { name, ...(key !== undefined ? { key } : { sha256: (sha256 as string).toLowerCase() }), scopes };
  });
}

/**
 * `API_KEYS`: a JSON array of `{ name, key | sha256, scopes }`. Outside production an unset
 * variable means the documented development key; production refuses to start without keys
 * and refuses that key.
 */
export const apiKeys: Reader<ApiKeyConfig[]> = (env) => {
  const production = nodeEnv(env) === 'production';
  const text = env['API_KEYS']?.trim();
  if (!text && production) throw new ConfigError('API_KEYS', 'is required in production (a JSON array of { name, key | sha256, scopes })');
  const keys = text ? parseApiKeys(text) : [DEV_API_KEY];
  if (production && keys.length === 0) throw new ConfigError('API_KEYS', 'must list at least one key in production');
  if (production && keys.some((key) => key.key === DEV_API_KEY.key)) throw new ConfigError('API_KEYS', 'must not contain the development key in production');
  return keys;
};

const BEARER = /^Bearer +([^\s]+) *$/i;

/**
 * Authenticates `Authorization: Bearer <key>`. Keys are hashed once; a presented key is
 * hashed and compared with every configured digest in constant time (equal lengths by
 * construction), without stopping at the first match, so timing tells nothing about the keys.
 */
export class ApiKeyring {
  private readonly entries: ReadonlyArray<{ digest: Buffer; principal: ApiPrincipal }>;

  constructor(keys: readonly ApiKeyConfig[]) {
    this.entries = keys.map((config) => ({
      digest: config.key !== undefined ? hash('sha256', config.key, 'buffer') : Buffer.from(config.sha256 ?? '', 'hex'),
      principal: { name: config.name, scopes: new Set(config.scopes) },
    }));
  }

  authenticate(authorization: string | undefined): ApiPrincipal | undefined {
    const match = BEARER.exec(authorization ?? '');
    if (!match) return undefined;
    const presented = hash('sha256', match[1], 'buffer');
    return this.entries.filter((entry) => timingSafeEqual(entry.digest, presented))[0]?.principal;
  }
}
