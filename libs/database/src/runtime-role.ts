import type { MikroORM } from '@mikro-orm/postgresql';

/** The role a service connects as while it serves: the one named by its DATABASE_URL. */
export interface RuntimeRole {
  name: string;
  /** Set as the role's password when given (containers); none on a trust-authenticated development server. */
  password?: string;
}

const ROLE_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** The user of a postgres:// URL and its password, if the URL has one. */
export function roleOf(url: string): RuntimeRole {
  const parsed = new URL(url);
  const name = decodeURIComponent(parsed.username);
  return { name, ...(parsed.password && { password: decodeURIComponent(parsed.password) }) };
}

const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;
const quoteLiteral = (text: string) => `'${text.replace(/'/g, "''")}'`;

/**
 * Least privilege for the serving process, applied by the migrate step (which runs as an owner):
 * the runtime role logs in, can connect to this database only (PUBLIC loses CONNECT on it), and
 * may read and write the rows of its tables (TRUNCATE too, which only deletes every row at once:
 * the outbox relay empties its table so), but owns nothing and cannot create, alter or drop.
 * Idempotent: every migrate run brings the grants in line with the tables that exist now.
 */
export async function grantRuntimeRole(orm: MikroORM, database: string, role: RuntimeRole): Promise<void> {
  if (!ROLE_NAME.test(role.name)) throw new Error(`Refusing runtime role name "${role.name}": lower-case letters, digits and _ only`);
  const name = quoteIdent(role.name);
  const password = role.password === undefined ? '' : ` password ${quoteLiteral(role.password)}`;
  const connection = orm.em.getConnection();
  await connection.execute(
    `do $$ begin
       if not exists (select from pg_roles where rolname = ${quoteLiteral(role.name)}) then create role ${name}; end if;
     end $$`,
  );
  await connection.execute(`alter role ${name} login nosuperuser nocreatedb nocreaterole noreplication nobypassrls${password}`);
  await connection.execute(`revoke all on database ${quoteIdent(database)} from public`);
  await connection.execute(`grant connect on database ${quoteIdent(database)} to ${name}`);
  await connection.execute(`revoke create on schema public from public`);
  await connection.execute(`grant usage on schema public to ${name}`);
  await connection.execute(`grant select, insert, update, delete, truncate on all tables in schema public to ${name}`);
  await connection.execute(`grant usage, select, update on all sequences in schema public to ${name}`);
  // The migrations' own bookkeeping stays the owner's.
  await connection.execute(`revoke insert, update, delete, truncate on mikro_orm_migrations from ${name}`);
}
