import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { TEST_RUN_VARIABLE } from '../test-environment';

/** Starts one of the suites' servers (tools/stack), if needed, and hands its variables (paths, never a password) to the workers. */
function ensureTestServer(tool: string): void {
  const server = spawnSync(process.execPath, [resolve(__dirname, '../../../../tools/stack', tool), 'test-server'], { encoding: 'utf8' });
  if (server.status !== 0) throw new Error(`The test server of ${tool} did not start: ${server.stderr.trim()}`);
  Object.assign(process.env, JSON.parse(server.stdout) as Record<string, string>);
}

/**
 * Names the Jest run before its workers start, so they inherit the name (see `uniqueNamespace`),
 * and makes sure the suites' NATS server (TLS, a user per process) and Redis (TLS, the gateway's
 * ACL user) run; their addresses reach the workers the same way.
 */
export default async function nameTestRun(): Promise<void> {
  process.env[TEST_RUN_VARIABLE] ||= randomBytes(4).toString('hex');
  ensureTestServer('nats.cjs');
  ensureTestServer('redis.cjs');
}
