// The stacks' own Redis (the rate limit several gateways share): TLS only, no default user, and an
// ACL user for the gateways that may run the rate limit's commands on its own keys and nothing
// else. The machine's Redis on 6379 lets anyone in, so no stack uses it.
'use strict';
const { spawn } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { CACHE, ensureCertificates, passwordFile, writeSecret, canConnect, runningPid, waitForPort } = require('./secrets.cjs');

/** The scaled stacks' Redis (`npm run cluster`; + 20000 in the bench's, + 25000 in the chaos run's). */
const REDIS_PORT = 6380;
/** The one the unit and integration suites share. */
const TEST_REDIS_PORT = 6390;
/** The gateways' user, and the keys and commands it may use: rate-limiter-flexible's script (EVALSHA, EVAL when the script is not cached) and what the script calls. */
const RATE_LIMIT_USER = 'ratelimit';
const RATE_LIMIT_ACL = '~petstore:rate:* resetchannels -@all +evalsha +eval +set +incrby +pttl +expire';
/** The stack tools' own user, to load a changed ACL file (a rotated password) into the running server. */
const ADMIN_USER = 'admin';

/** Where the Redis on `port` keeps its configuration, secrets and pid file (`redis.pid`). */
function redisDir(port) {
  return path.join(CACHE, `redis-${port}`);
}

/**
 * `unsecured`: no TLS and no ACL user (the default user, without a password), for the benchmark of
 * what they cost only; the gateway connects to it with BUS_SECURITY_OFF_BENCH_ONLY=true, without
 * which it refuses such a Redis.
 */
function redisServer(port, { unsecured = false } = {}) {
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
function hashOf(file) {
  return crypto.createHash('sha256').update(fs.readFileSync(file, 'utf8').trim()).digest('hex');
}

function writeConfig(server) {
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
    `user ${ADMIN_USER} on #${hashOf(server.adminPasswordFile)} ~* &* +@all`,
    '',
  ].join('\n');
  const aclFile = path.join(server.dir, 'users.acl');
  const changed = !fs.existsSync(aclFile) || fs.readFileSync(aclFile, 'utf8') !== acl;
  if (changed) writeSecret(aclFile, acl);
  const at = (name) => path.join(server.dir, name);
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
function adminClient(server) {
  const { Redis } = require('ioredis');
  return new Redis({
    host: '127.0.0.1',
    port: server.port,
    username: ADMIN_USER,
    password: fs.readFileSync(server.adminPasswordFile, 'utf8').trim(),
    tls: { ca: fs.readFileSync(server.caFile) },
    lazyConnect: true,
    maxRetriesPerRequest: 0,
  });
}

/** Starts the stack's Redis if it is not running; loads its ACL file again when that changed (a rotated password), without a restart. */
async function ensureRedisServer(server, redisServerBinary) {
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
async function stopRedisServer(server) {
  const pidFile = path.join(server.dir, 'redis.pid');
  const pid = runningPid(pidFile);
  if (!pid) return;
  process.kill(pid, 'SIGTERM');
  while (runningPid(pidFile) && (await canConnect('127.0.0.1', server.port))) await new Promise((resolve) => setTimeout(resolve, 100));
}

module.exports = { REDIS_PORT, TEST_REDIS_PORT, RATE_LIMIT_USER, RATE_LIMIT_ACL, redisDir, redisServer, ensureRedisServer, stopRedisServer };

// `node tools/stack/redis.cjs test-server`: the suites' Redis, started if needed; prints the
// gateway's variables (paths only, never a password). Jest's global setup runs it.
if (require.main === module && process.argv[2] === 'test-server') {
  const server = redisServer(TEST_REDIS_PORT);
  ensureRedisServer(server, () => require('./stack.cjs').installPackage('redis-server', 'redis-server')).then(
    () => {
      const { RATE_LIMIT_REDIS_URL, RATE_LIMIT_REDIS_PASSWORD_FILE, RATE_LIMIT_REDIS_TLS_CA_FILE } = server.gatewayEnv;
      const variables = { TEST_REDIS_URL: RATE_LIMIT_REDIS_URL, TEST_REDIS_PASSWORD_FILE: RATE_LIMIT_REDIS_PASSWORD_FILE, TEST_REDIS_CA_FILE: RATE_LIMIT_REDIS_TLS_CA_FILE };
      process.stdout.write(`${JSON.stringify(variables)}\n`);
    },
    (error) => {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    },
  );
}
