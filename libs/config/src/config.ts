import { accessSync, constants as fsConstants, readFileSync } from 'node:fs';

/**
 * Environment configuration read once at start-up. Each field is a reader that
 * knows its variable's name, so a bad value is reported as one line naming it.
 */
export class ConfigError extends Error {
  constructor(readonly variable: string, problem: string) {
    super(`Invalid configuration: ${variable} ${problem}`);
    this.name = 'ConfigError';
  }
}

export type Env = Record<string, string | undefined>;
export type Reader<T> = (env: Env) => T;

function raw(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function present(env: Env, name: string, fallback: string | undefined): string {
  const value = raw(env, name) ?? fallback;
  if (value === undefined) throw new ConfigError(name, 'is required but not set');
  return value;
}

export function str(name: string, fallback?: string): Reader<string> {
  return (env) => present(env, name, fallback);
}

export function optionalStr(name: string): Reader<string | undefined> {
  return (env) => raw(env, name);
}

export function int(name: string, fallback: number | undefined, bounds: { min?: number; max?: number } = {}): Reader<number> {
  return (env) => {
    const text = present(env, name, fallback?.toString());
    const value = Number(text);
    const { min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER } = bounds;
    if (!/^-?\d+$/.test(text) || value < min || value > max) {
      throw new ConfigError(name, `must be an integer from ${min} to ${max} (got "${text}")`);
    }
    return value;
  };
}

export function port(name: string, fallback: number): Reader<number> {
  return int(name, fallback, { min: 1, max: 65535 });
}

export function oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): Reader<T> {
  return (env) => {
    const text = present(env, name, fallback);
    if (!(allowed as readonly string[]).includes(text)) {
      throw new ConfigError(name, `must be one of ${allowed.join(', ')} (got "${text}")`);
    }
    return text as T;
  };
}

export function bool(name: string, fallback: boolean): Reader<boolean> {
  return (env) => {
    const text = present(env, name, String(fallback)).toLowerCase();
    if (text !== 'true' && text !== 'false') throw new ConfigError(name, `must be true or false (got "${text}")`);
    return text === 'true';
  };
}

export function instant(name: string, fallback: string): Reader<Date> {
  return (env) => {
    const text = present(env, name, fallback);
    const value = new Date(text);
    if (!/^\d{4}-\d{2}-\d{2}T/.test(text) || Number.isNaN(value.getTime())) {
      throw new ConfigError(name, `must be an ISO 8601 date-time (got "${text}")`);
    }
    return value;
  };
}

/** `host:port`, as used for the services' TCP transports. */
export function hostPort(name: string, fallback: string): Reader<{ host: string; port: number }> {
  return (env) => {
    const text = present(env, name, fallback);
    const match = /^([^:\s]+):(\d{1,5})$/.exec(text);
    const portNumber = match ? Number(match[2]) : 0;
    if (!match || portNumber < 1 || portNumber > 65535) throw new ConfigError(name, `must be host:port (got "${text}")`);
    return { host: match[1], port: portNumber };
  };
}

export function list(name: string, fallback: string): Reader<string[]> {
  return (env) => present(env, name, fallback).split(',').map((item) => item.trim()).filter(Boolean);
}

export function postgresUrl(name: string, fallback: string): Reader<string> {
  return (env) => {
    const text = present(env, name, fallback);
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw new ConfigError(name, 'must be a postgres:// URL');
    }
    if (!['postgres:', 'postgresql:'].includes(url.protocol) || url.pathname.length < 2) {
      throw new ConfigError(name, 'must be a postgres:// URL that names a database');
    }
    checkPostgresTls(name, url.searchParams);
    return text;
  };
}

/**
 * TLS to PostgreSQL is asked for in the URL with libpq's names, which pg reads: `sslmode=verify-full`
 * (and `sslrootcert`, `sslcert`, `sslkey` files). The other modes accept a server that cannot
 * prove who it is, so they are refused rather than giving encryption without authentication.
 */
const POSTGRES_SSL_MODES = ['disable', 'verify-full'];
const POSTGRES_SSL_FILES = ['sslrootcert', 'sslcert', 'sslkey'];

function checkPostgresTls(name: string, params: URLSearchParams): void {
  const mode = params.get('sslmode');
  if (mode !== null && !POSTGRES_SSL_MODES.includes(mode)) {
    throw new ConfigError(name, `sslmode must be ${POSTGRES_SSL_MODES.join(' or ')} (got "${mode}": it would not check the server's certificate)`);
  }
  for (const file of POSTGRES_SSL_FILES) {
    const path = params.get(file);
    if (path === null) continue;
    if (mode !== 'verify-full') throw new ConfigError(name, `${file} goes with sslmode=verify-full`);
    try {
      accessSync(path, fsConstants.R_OK);
    } catch {
      throw new ConfigError(name, `${file} names a file that cannot be read (${path})`);
    }
  }
}

/**
 * The content of the file `variable` names (a secret kept out of the environment: a password a
 * platform mounts, or one the stack tools generate), trimmed; undefined when the variable is unset.
 * A file that cannot be read, or is empty, is refused with the variable's name.
 */
export function secretFile(variable: string): Reader<string | undefined> {
  return (env) => {
    const file = raw(env, variable);
    if (file === undefined) return undefined;
    let text: string;
    try {
      text = readFileSync(file, 'utf8').trim();
    } catch (error) {
      throw new ConfigError(variable, `cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    }
    if (!text) throw new ConfigError(variable, `names an empty file (${file})`);
    return text;
  };
}

export type ConfigShape<T> = { [K in keyof T]: Reader<T[K]> };

export function readConfig<T>(shape: ConfigShape<T>, env: Env = process.env): T {
  const result = {} as T;
  for (const key of Object.keys(shape) as (keyof T)[]) result[key] = shape[key](env);
  return result;
}

/**
 * For `main.ts`: read the configuration or stop the process with the one line
 * that names the bad variable, instead of a stack trace from deep inside Nest.
 */
export function readConfigOrExit<T>(shape: ConfigShape<T>, env: Env = process.env): T {
  try {
    return readConfig(shape, env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
}
