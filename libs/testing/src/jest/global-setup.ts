import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { TEST_RUN_VARIABLE } from '../test-environment';

/**
 * Names the Jest run before its workers start, so they inherit the name (see `uniqueNamespace`),
 * and makes sure the suites' NATS server runs (tools/stack/nats.cjs: TLS, a user per process);
 * its address and CA reach the workers the same way.
 */
export default async function nameTestRun(): Promise<void> {
  process.env[TEST_RUN_VARIABLE] ||= randomBytes(4).toString('hex');
  const natsServer = spawnSync(process.execPath, [resolve(__dirname, '../../../../tools/stack/nats.cjs'), 'test-server'], { encoding: 'utf8' });
  if (natsServer.status !== 0) throw new Error(`The test NATS server did not start: ${natsServer.stderr.trim()}`);
  Object.assign(process.env, JSON.parse(natsServer.stdout) as Record<string, string>);
}
