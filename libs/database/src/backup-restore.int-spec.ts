import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Migration } from '@mikro-orm/migrations';
import { Client } from 'pg';
import { databaseOptions } from './database-options';
import { migrate } from './migrate';
import { roleOf } from './runtime-role';

class Migration20260101000000_note extends Migration {
  override async up(): Promise<void> {
    this.addSql('create table "note" ("id" bigserial primary key, "text" text not null);');
  }
}

/**
 * The backup and restore commands of docs/OPERATIONS.md, exactly as written there for the orders
 * database, minus their `docker compose exec -T postgres` prefix: run here against a test
 * database on the local server (over TCP, as the container's own client would over its socket).
 */
function documentedCommands(): string[] {
  const doc = readFileSync(join(__dirname, '../../../docs/OPERATIONS.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## Backup and restore'), doc.indexOf('## Scaling'));
  const prefix = 'docker compose exec -T postgres ';
  const commands = section.split('\n').filter((line) => line.startsWith(prefix));
  expect(commands.map((line) => line.slice(prefix.length).split(' ')[0])).toEqual(['pg_dump', 'dropdb', 'createdb', 'psql']);
  return commands.map((line) => line.slice(prefix.length));
}

async function query(url: string, sql: string): Promise<unknown[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

describe('backup and restore as documented', () => {
  const database = `petstore_backup_${randomBytes(4).toString('hex')}_test`;
  const owner = `postgres://postgres@127.0.0.1:5432/${database}`;
  const serving = `postgres://${database}@127.0.0.1:5432/${database}`;
  const options = {
    ...databaseOptions({ url: owner, entities: [], migrations: [{ name: 'Migration20260101000000_note', class: Migration20260101000000_note }] }),
    discovery: { warnWhenNoEntities: false },
  };
  const dir = mkdtempSync(join(tmpdir(), 'petstore-backup-'));

  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await query('postgres://postgres@127.0.0.1:5432/postgres', `drop database if exists "${database}" with (force)`);
    await query('postgres://postgres@127.0.0.1:5432/postgres', `drop role if exists "${database}"`);
  }, 30_000);

  it('dumps without a terminal, restores into an empty database, and serves again after the migrate step', async () => {
    await migrate(options, roleOf(serving));
    await query(serving, `insert into note (text) values ('before the backup'), ('and another')`);

    const run = (command: string) =>
      execFileSync('bash', ['-c', command.replaceAll('petstore_orders', database).replaceAll('orders.sql', join(dir, 'orders.sql'))], {
        env: { ...process.env, PGHOST: '127.0.0.1', PGPORT: '5432' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    const [dump, drop, create, restore] = documentedCommands();
    run(dump);
    await query(serving, `insert into note (text) values ('after the backup')`);
    run(drop);
    run(create);
    run(restore);

    await expect(migrate(options, roleOf(serving))).resolves.toEqual([]);
    await expect(query(serving, 'select text from note order by id')).resolves.toEqual([
      { text: 'before the backup' },
      { text: 'and another' },
    ]);
    await query(serving, `insert into note (text) values ('after the restore')`);
    await expect(query(serving, 'select count(*)::int as n from note')).resolves.toEqual([{ n: 3 }]);
  }, 60_000);
});
