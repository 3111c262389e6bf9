// What a stack needs before its processes start: the apps built, the databases migrated, Kafka's
// topics and ACLs provisioned; and, for test stacks, the databases dropped first.
import { spawnSync } from 'node:child_process';
import { builtAppMain, launch } from '@petstore/launcher';
import { Client } from 'pg';
import { kafkaCredentials } from './kafka';
import { APPS, SERVICES, type StackLayout } from './layout';
import { ROOT } from './paths';
import { terminalOutput } from './terminal-output';

export function build(apps: readonly string[] = APPS): void {
  const result = spawnSync('npx', ['nx', 'run-many', '-t', 'build', '-p', ...apps, '--outputStyle=static'], {
    cwd: ROOT,
    stdio: 'inherit',
    env: { ...process.env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true', NX_TUI: 'false' },
  });
  if (result.status !== 0) throw new Error('The build failed (see the messages above)');
}

/** The built bundle of `app`. */
export const mainOf = builtAppMain;

/** Runs a built app's one-off command (`migrate`, `kafka-provision`) to its end, its lines labelled on this process's stdout; false when it failed. */
async function runCommand(app: string, command: string, env: Record<string, string>): Promise<boolean> {
  return (await launch(builtAppMain(app), { args: [command], env, label: app, output: terminalOutput() }).exited()) === 0;
}

/** Each service's migrations, as its database's owner, then Kafka's provisioning. */
export async function runMigrations(layout: StackLayout, extraEnv: Record<string, string> = {}): Promise<void> {
  for (const name of SERVICES) {
    if (!(await runCommand(name, 'migrate', { ...extraEnv, ...layout.envs[name] }))) throw new Error(`Migrations of ${name} failed`);
  }
  await provisionKafka(layout, extraEnv);
}

/**
 * Kafka's topics and ACLs, provisioned like the databases before any service starts, as the
 * administrator (an unsecured layout's plaintext broker knows no one: there, anonymously).
 */
export async function provisionKafka(layout: StackLayout, extraEnv: Record<string, string> = {}): Promise<void> {
  const admin = layout.kafkaSecrets ? kafkaCredentials(layout.kafkaSecrets, 'admin') : {};
  if (!(await runCommand(SERVICES[0], 'kafka-provision', { ...extraEnv, ...layout.envs[SERVICES[0]], ...admin }))) {
    throw new Error('Provisioning the Kafka topics and ACLs failed');
  }
}

/** Drops the stack's databases: test stacks start from nothing. Refuses names that do not mark a test database. */
export async function dropDatabases(layout: StackLayout): Promise<void> {
  const client = new Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
  await client.connect();
  try {
    for (const name of SERVICES) {
      const database = new URL(layout.envs[name].DATABASE_URL).pathname.slice(1);
      if (!/_(test|e2e|bench|chaos)$/.test(database)) throw new Error(`Refusing to drop ${database}`);
      await client.query(`drop database if exists "${database}" with (force)`);
    }
  } finally {
    await client.end();
  }
}
