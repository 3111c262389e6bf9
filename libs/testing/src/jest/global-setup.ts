import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { KAFKA_ADMIN_PRINCIPAL } from '@petstore/contracts';
import { KAFKA_SECURITY_VARIABLES } from '@petstore/kafka';
import { workspaceRoot } from '@petstore/launcher';
import { TEST_RUN_VARIABLE, testKafkaSecretsDir } from '../test-environment';

/**
 * Starts one of the suites' servers, if needed, and hands its variables (paths, never a password)
 * to the workers. The program is the stack tools' bundle, which every `test` target builds first (nx.json).
 * `npm test` runs two projects' Jest at once and both come here: flock(1) lets one at a time make
 * the server's certificates and passwords and start it, so the other finds them whole and running.
 */
function ensureTestServer(which: 'nats' | 'redis'): void {
  const cache = process.env['PETSTORE_CACHE'] || join(homedir(), '.cache/petstore');
  mkdirSync(cache, { recursive: true });
  const program = [process.execPath, join(workspaceRoot, 'dist/tools/stack/test-server.js'), which];
  const server = spawnSync('flock', [join(cache, `test-${which}-server.lock`), ...program], { encoding: 'utf8' });
  if (server.status !== 0) throw new Error(`The suites' ${which} server did not start: ${(server.stderr || String(server.error ?? '')).trim()}`);
  Object.assign(process.env, JSON.parse(server.stdout) as Record<string, string>);
}

/**
 * Names the Jest run before its workers start, so they inherit the name (see `uniqueNamespace`);
 * makes the run's own Kafka clients the administrator: the tests provision each suite's
 * namespace and publish the events of any service (the spawned stacks run each service as its
 * own principal, and kafka-access.int-spec checks every principal's rights); and makes sure the
 * suites' NATS server (TLS, a user per process) and Redis (TLS, the gateway's ACL user) run,
 * their addresses reaching the workers the same way.
 */
export default async function nameTestRun(): Promise<void> {
  process.env[TEST_RUN_VARIABLE] ||= randomBytes(4).toString('hex');
  if (!process.env[KAFKA_SECURITY_VARIABLES.username]) {
    const secrets = testKafkaSecretsDir();
    process.env[KAFKA_SECURITY_VARIABLES.username] = KAFKA_ADMIN_PRINCIPAL;
    process.env[KAFKA_SECURITY_VARIABLES.passwordFile] = `${secrets}/${KAFKA_ADMIN_PRINCIPAL}.password`;
    process.env[KAFKA_SECURITY_VARIABLES.tlsCaFile] = `${secrets}/ca.pem`;
  }
  ensureTestServer('nats');
  ensureTestServer('redis');
}
