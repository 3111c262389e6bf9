// The stacks' own Redis (the rate limit several gateways share): TLS only, no default user, and an
// ACL user for the gateways that may run the rate limit's commands on its own keys and nothing
// else. The machine's Redis on 6379 lets anyone in, so no stack uses it.
import { spawn } from 'node:child_process';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Redis } from 'ioredis';
import { CACHE } from './paths';
import { canConnect, ensureCertificates, passwordFile, runningPid, waitForPort, writeSecret } from './secrets';

/** The scaled stacks' Redis (`npm run cluster`; + 20000 in the bench's, + 25000 in the chaos run's). */
export const REDIS_PORT = 6380;
/** The one the unit and integration suites share. */
export const TEST_REDIS_PORT = 6390;
/** The gateways' user, and the keys and commands it may use: rate-limiter-flexible's script (EVALSHA, EVAL when the script is not cached) and what the script calls. */
export const RATE_LIMIT_USER = 'ratelimit';
export const RATE_LIMIT_ACL = '~petstore:rate:* resetchannels -@all +evalsha +eval +set +incrby +pttl +expire';
/** The stack tools' own user, to load a changed ACL file (a rotated password) into the running server. */
const ADMIN_USER = 'admin';

/** A stack's Redis as `redisServer` lays it out; `gatewayEnv` is what a gateway reaches it with. */
export interface RedisServer {
  port: number;
  dir: string;
  unsecured?: boolean;
  /** Absent when `unsecured`. */
  caFile?: string;
  adminPasswordFile?: string;
  gatewayEnv: Record<string, string>;
}

/** Where the Redis on `port` keeps its configuration, secrets and pid file (`redis.pid`). */
export function redisDir(port: number): string {
  return path.join(CACHE, `redis-${port}`);
}

/**
 * `unsecured`: no TLS and no ACL user (the default user, without a password), for the benchmark of
 * what they cost only; the gateway connects to it with BUS_SECURITY_OFF_BENCH_ONLY=true, without
 * which it refuses such a Redis.
 */
export function redisServer(port: number, { unsecured = false }: { unsecured?: boolean } = {}): RedisServer {
  const dir = redisDir(port);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (unsecured) return { port, dir, unsecured, gatewayEnv: { RATE_LIMIT_REDIS_URL: `redis://127.0.0.1:${port}` } };
  ensureCertificates(dir);
  const caFile = path.join(dir, 'ca.pem');
  const gatewayEnv = {
    RATE_LIMIT_REDIS_URL: `rediss://${RATE_LIMIT_USER}@127.0.0.1:${port}`,
    RATE_LIMIT_REDIS_PASSWORD_FILE: passwordFile(dir, RATE_LIMIT_USER),
    RATE_LIMIT_REDIS_TLS_CA_FILE: caFile,
  };
  return { port, dir, caFile, gatewayEnv, adminPasswordFile: passwordFile(dir, ADMIN_USER) };
}

/** Passwords go into the ACL file as SHA-256 hashes (`#<hex>`), never in clear. */
function hashOf(file: string): string {
  return crypto.createHash('sha256').update(fs.readFileSync(file, 'utf8').trim()).digest('hex');
}

function writeConfig(server: RedisServer): { file: string; pidFile: string; changed: boolean } {
  const file = path.join(server.dir, 'redis.conf');
  const pidFile = path.join(server.dir, 'redis.pid');
  const common = ['bind 127.0.0.1', `pidfile ${pidFile}`, `dir ${server.dir}`, 'save ""', 'appendonly no'];
  if (server.unsecured) {
    writeSecret(file, [...common, `port ${server.port}`, ''].join('\n'));
    return { file, pidFile, changed: false };
  }
  const acl = [
    'user default off',
    `user ${RATE_LIMIT_USER} on #${hashOf(server.gatewayEnv.RATE_LIMIT_REDIS_PASSWORD_FILE)} ${RATE_LIMIT_ACL}`,
    `user ${ADMIN_USER} on #${hashOf(server.adminPasswordFile as string)} ~* &* +@all`,
    '',
  ].join('\n');
  const aclFile = path.join(server.dir, 'users.acl');
  const changed = !fs.existsSync(aclFile) || fs.readFileSync(aclFile, 'utf8') !== acl;
  if (changed) writeSecret(aclFile, acl);
  const at = (name: string) => path.join(server.dir, name);
  writeSecret(
    file,
    [
      ...common,
      'port 0',
      `tls-port ${server.port}`,
      `tls-cert-file ${at('server.pem')}`,
      `tls-key-file ${at('server.key')}`,
      `tls-ca-cert-file ${at('ca.pem')}`,
      'tls-auth-clients no',
      `aclfile ${aclFile}`,
      '',
    ].join('\n'),
  );
  return { file, pidFile, changed };
}

/** A connection as the stack tools' admin user. */
function adminClient(server: RedisServer): Redis {
  return new Redis({
    host: '127.0.0.1',
    port: server.port,
    username: ADMIN_USER,
    password: fs.readFileSync(server.adminPasswordFile as string, 'utf8').trim(),
    tls: { ca: fs.readFileSync(server.caFile as string) },
    lazyConnect: true,
    maxRetriesPerRequest: 0,
  });
}

/** Starts the stack's Redis if it is not running; loads its ACL file again when that changed (a rotated password), without a restart. */
export async function ensureRedisServer(server: RedisServer, redisServerBinary: () => string): Promise<void> {
  const config = writeConfig(server);
  const pid = runningPid(config.pidFile);
  if (pid && (await canConnect('127.0.0.1', server.port))) {
    if (config.changed) {
      const admin = adminClient(server);
      try {
        await admin.connect();
        await admin.acl('LOAD');
      } finally {
        admin.disconnect();
      }
    }
    return;
  }
  if (await canConnect('127.0.0.1', server.port)) throw new Error(`127.0.0.1:${server.port} answers, but not the stack's Redis (${config.pidFile}): stop what listens there`);
  spawn(redisServerBinary(), [config.file], { detached: true, stdio: 'ignore' }).unref();
  await waitForPort(server.port, `redis-server (configuration ${config.file})`);
}

/** Stops a server that `ensureRedisServer` started (the security benchmark's own, once measured). */
export async function stopRedisServer(server: RedisServer): Promise<void> {
  const pidFile = path.join(server.dir, 'redis.pid');
  const pid = runningPid(pidFile);
  if (!pid) return;
  process.kill(pid, 'SIGTERM');
  while (runningPid(pidFile) && (await canConnect('127.0.0.1', server.port))) await new Promise((resolve) => setTimeout(resolve, 100));
}
