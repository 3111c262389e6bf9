import { readFileSync } from 'node:fs';
import { checkServerIdentity, type ConnectionOptions } from 'node:tls';
import { Migrator } from '@mikro-orm/migrations';
import { defineConfig, type Options } from '@mikro-orm/postgresql';
import type { Constructor, EntityClass, EntitySchema } from '@mikro-orm/core';
import type { Migration } from '@mikro-orm/migrations';
import { processLogger } from '@petstore/observability';
import type { ClientConfig } from 'pg';

export interface NamedMigration {
  name: string;
  class: Constructor<Migration>;
}

export interface DatabaseSettings {
  url: string;
  entities: (EntityClass<unknown> | EntitySchema)[];
  /** Listed explicitly: the apps are webpack bundles, so there is no folder to scan. */
  migrations: NamedMigration[];
  /** The most connections the pool opens; the service's DATABASE_POOL_MAX. */
  poolMax?: number;
}

export const DEFAULT_POOL_MAX = 10;

export function databaseOptions({ url, entities, migrations, poolMax = DEFAULT_POOL_MAX }: DatabaseSettings): Options {
  return defineConfig({
    clientUrl: url,
    // MikroORM keeps only host, port, user, password and database of the URL, so its TLS settings
    // reach the pool here; the sessions that pg opens from the URL itself read them the same way.
    driverOptions: { connection: { ssl: tlsOf(url) } },
    entities,
    extensions: [Migrator],
    // Every unit of work forks the EntityManager; a shared identity map would leak state between requests.
    allowGlobalContext: false,
    // Entities declare their column types; skipping reflection keeps start-up fast and bundle-safe.
    // A service's tables that no entity describes (the outbox, the consumer positions) are SQL's alone.
    discovery: { requireEntitiesArray: true, warnWhenNoEntities: false },
    pool: { min: 1, max: poolMax },
    // Creating the database is the job of the explicit `migrate` step, not of every boot.
    ensureDatabase: false,
    // Migration progress and MikroORM's warnings are lines of the process's logger: JSON, no colour codes.
    logger: (message) => processLogger().info({ context: 'mikro-orm' }, message),
    colors: false,
    migrations: {
      migrationsList: migrations,
      tableName: 'mikro_orm_migrations',
      transactional: true,
      allOrNothing: true,
      snapshot: false,
    },
    debug: false,
  });
}

const TLS_PARAMS = ['sslmode', 'sslrootcert', 'sslcert', 'sslkey'];

/**
 * pg's TLS options for a URL's libpq-style `sslmode` (disable or verify-full: libs/config refuses
 * the modes that skip the server's certificate) and its `sslrootcert`, `sslcert`, `sslkey` files.
 * `false` when the URL asks for no TLS.
 */
export function tlsOf(url: string): false | ConnectionOptions {
  const { hostname, searchParams } = new URL(url);
  const mode = searchParams.get('sslmode');
  if (mode === null || mode === 'disable') return false;
  const file = (name: string) => {
    const path = searchParams.get(name);
    return path === null ? undefined : readFileSync(path, 'utf8');
  };
  const host = hostname.replace(/^\[(.*)\]$/, '$1');
  return {
    ca: file('sslrootcert'),
    cert: file('sslcert'),
    key: file('sslkey'),
    // Node checks the chain by default; the name it would check is pg's SNI, which pg leaves
    // unset for an IP address (so Node checks "localhost"): check the host the URL names.
    checkServerIdentity: (_servername, certificate) => checkServerIdentity(host, certificate),
  };
}

/**
 * Settings for a pg Client of its own (a LISTEN session): the URL, with its TLS read by tlsOf, as
 * the pool reads it (pg's own reading of `sslmode` would check an IP host against "localhost").
 */
export function pgClientSettings(url: string): ClientConfig {
  const plain = new URL(url);
  for (const param of TLS_PARAMS) plain.searchParams.delete(param);
  return { connectionString: plain.toString(), ssl: tlsOf(url) };
}

export function databaseName(url: string): string {
  return decodeURIComponent(new URL(url).pathname.slice(1));
}
