import { MikroORM, type Options } from '@mikro-orm/postgresql';
import { databaseName } from './database-options';
import { grantRuntimeRole, type RuntimeRole } from './runtime-role';

/**
 * The explicit start-up step that creates the service's database when it is missing
 * and applies the committed migrations. Services never alter their schema at boot.
 * `options` connect as the owner; `runtimeRole`, when given, is the role the service serves
 * as, which gets data access to this database and nothing else (see grantRuntimeRole).
 */
export async function migrate(options: Options, runtimeRole?: RuntimeRole): Promise<string[]> {
  // `ensureDatabase` creates the database when it is missing (and only then: no schema from entities).
  const orm = await MikroORM.init({ ...options, ensureDatabase: true });
  try {
    const applied = await orm.getMigrator().up();
    if (runtimeRole) await grantRuntimeRole(orm, databaseName(options.clientUrl ?? ''), runtimeRole);
    return applied.map((migration) => migration.name);
  } finally {
    await orm.close(true);
  }
}

/**
 * Tests recreate their schema from the migrations, so the migrations themselves are
 * under test. They refuse any database whose name does not mark it as a test one.
 */
export async function prepareTestDatabase(options: Options): Promise<void> {
  const name = databaseName(options.clientUrl ?? '');
  assertTestDatabaseName(name);
  const orm = await MikroORM.init({ ...options, ensureDatabase: true });
  try {
    await orm.em.getConnection().execute('drop schema if exists public cascade; create schema public;');
    await orm.getMigrator().up();
  } finally {
    await orm.close(true);
  }
}

export function assertTestDatabaseName(name: string): void {
  if (!/_test$|_e2e$|_bench$/.test(name)) {
    throw new Error(`Refusing to reset database "${name}": test databases end in _test, _e2e or _bench`);
  }
}
