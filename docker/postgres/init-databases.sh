#!/usr/bin/env bash
# Run by the postgres image once, when the data volume is first initialised (every
# script in /docker-entrypoint-initdb.d runs against a temporary, socket-only server).
# Each service owns exactly one database; its own `node main.js migrate` creates the
# tables. Keep this list in step with the DATABASE_URLs in docker-compose.yml.
set -eo pipefail

databases=(petstore_catalog petstore_orders petstore_inventory)

for database in "${databases[@]}"; do
  # CREATE DATABASE cannot run inside a function or DO block, hence \gexec; the
  # NOT EXISTS guard makes a rerun by hand harmless.
  psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" --set=name="$database" <<'SQL'
SELECT format('CREATE DATABASE %I', :'name')
WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = :'name')
\gexec
SQL
done

# Only the migrate steps (as postgres) and each service's own role reach a database: the
# maintenance database is closed to everyone else too (the migrate steps close their own).
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" <<'SQL'
REVOKE CONNECT, TEMPORARY ON DATABASE postgres FROM PUBLIC;
SQL
