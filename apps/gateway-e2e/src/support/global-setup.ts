import { randomBytes } from 'node:crypto';
import { writeFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { apiKeysEnv } from './fixtures';
import { STACK_STATE_FILE, type StackState } from './stack-state';

// The launcher is shared with `npm start` and the benchmarks, which run before anything is built,
// so it stays plain CommonJS under scripts/ rather than a library.
// eslint-disable-next-line @nx/enforce-module-boundaries
const stack = require('../../../../scripts/lib/stack.cjs');

/**
 * One real stack for the whole run, on its own ports (+10000), databases (`_e2e`), Kafka
 * broker and namespace, so it never meets a development stack that may be running beside it,
 * and the fault tests that stop the broker disturb nobody else.
 */
export default async function globalSetup(): Promise<void> {
  const namespace = `e2e-${randomBytes(4).toString('hex')}.`;
  const broker = stack.E2E_KAFKA;
  const layout = stack.stackLayout({
    offset: 10_000,
    databaseSuffix: '_e2e',
    namespace,
    kafkaBrokers: `127.0.0.1:${broker.port}`,
  });
  const extraEnv = { NODE_ENV: 'test', LOG_LEVEL: 'warn', RATE_LIMIT_PER_SECOND: '0', API_KEYS: apiKeysEnv(stack.DEV_API_KEY) };
  await stack.ensurePostgres();
  stack.ensureKafka(broker);
  await stack.dropDatabases(layout);
  stack.runMigrations(layout, extraEnv);
  const running = await stack.startStack(layout, { extraEnv });
  (globalThis as Record<string, unknown>).__petstoreStack = running;

  const state: StackState = {
    namespace,
    broker,
    gatewayUrl: layout.urls.gateway,
    apiKey: stack.DEV_API_KEY,
    envs: layout.envs,
    urls: layout.urls,
    extraEnv,
    pids: Object.fromEntries(Object.entries(running.processes).map(([name, child]) => [name, (child as { pid: number }).pid])),
  };
  mkdirSync(dirname(STACK_STATE_FILE), { recursive: true });
  writeFileSync(STACK_STATE_FILE, JSON.stringify(state, null, 2));
}
