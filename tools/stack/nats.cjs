// The stacks' own NATS servers: one per stack, on a port of its own, with TLS and a user per
// process whose permissions come from libs/contracts (RPC_CALLS). Certificates, passwords and the
// server configuration live in the stack's cache folder, readable by this user only.
'use strict';
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { CACHE, ensureCertificates, passwordFile, writeSecret, canConnect, runningPid, waitForPort } = require('./secrets.cjs');

const ROOT = path.resolve(__dirname, '../..');
const IDENTITIES = ['gateway', 'catalog', 'orders', 'inventory'];
/** The development stack's NATS; the others follow the ports scheme (+10000 end-to-end, +20000 bench, +25000 chaos). */
const NATS_PORT = 4322;
/** The scaled stack's (`npm run cluster`; +25000 in the chaos run's). */
const CLUSTER_NATS_PORT = 4332;
/** The server every unit and integration suite shares, each on a one-token namespace of its own (the subject prefix `*.`). */
const TEST_NATS = { port: 4342, subjectPrefix: '*.' };

function natsDir(port) {
  return path.join(CACHE, `nats-${port}`);
}

/**
 * The NATS server of the stack that listens on `port`: its folder, CA and passwords (made on first
 * use), and the variables each process connects with. Synchronous, so a layout has them at once.
 * `unsecured`: no TLS and no users, for the benchmark of what they cost only; its processes
 * connect with BUS_SECURITY_OFF_BENCH_ONLY=true, without which they refuse such a server.
 */
function natsServer(port, subjectPrefix, { harness = false, unsecured = false } = {}) {
  const dir = natsDir(port);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const url = `nats://127.0.0.1:${port}`;
  if (unsecured) return { port, dir, url, subjectPrefix, unsecured, envOf: () => ({ NATS_SERVERS: url }) };
  ensureCertificates(dir);
  const caFile = path.join(dir, 'ca.pem');
  const envOf = (identity) => ({ NATS_SERVERS: url, NATS_USER: identity, NATS_PASSWORD_FILE: passwordFile(dir, identity), NATS_TLS_CA_FILE: caFile });
  return { port, dir, url, subjectPrefix, caFile, envOf, harness };
}

/** Generates the server's configuration from libs/contracts (TypeScript, run through SWC as libs/contracts' own generators are). */
function writeServerConfig(server) {
  if (server.unsecured) return writeUnsecuredConfig(server);
  const options = {
    listen: `127.0.0.1:${server.port}`,
    subjectPrefix: server.subjectPrefix,
    pidFile: path.join(server.dir, 'nats.pid'),
    tls: { certFile: path.join(server.dir, 'server.pem'), keyFile: path.join(server.dir, 'server.key') },
    users: IDENTITIES.map((identity) => ({ identity, user: identity, password: fs.readFileSync(server.envOf(identity).NATS_PASSWORD_FILE, 'utf8').trim() })),
    ...(server.harness ? { harnessPassword: fs.readFileSync(server.envOf('harness').NATS_PASSWORD_FILE, 'utf8').trim() } : {}),
  };
  const generate = "let s='';process.stdin.on('data',(c)=>(s+=c)).on('end',()=>process.stdout.write(require('./libs/contracts/src/rpc/nats-authorization').natsServerConfig(JSON.parse(s))))";
  // The options (passwords among them) go on stdin, never on a command line another user can read.
  const result = spawnSync(process.execPath, ['-r', '@swc-node/register', '-e', generate], { cwd: ROOT, input: JSON.stringify(options), encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`Generating the NATS configuration failed: ${result.stderr.trim()}`);
  const file = path.join(server.dir, 'nats.conf');
  const changed = !fs.existsSync(file) || fs.readFileSync(file, 'utf8') !== result.stdout;
  if (changed) writeSecret(file, result.stdout);
  return { file, changed, pidFile: options.pidFile };
}

/** The benchmark's server without TLS and users: where it listens and writes its pid, nothing else. */
function writeUnsecuredConfig(server) {
  const pidFile = path.join(server.dir, 'nats.pid');
  const text = `# No TLS, no users: the benchmark of what they cost only (BUS_SECURITY_OFF_BENCH_ONLY).\n${JSON.stringify({ listen: `127.0.0.1:${server.port}`, pid_file: pidFile }, null, 2)}\n`;
  const file = path.join(server.dir, 'nats.conf');
  const changed = !fs.existsSync(file) || fs.readFileSync(file, 'utf8') !== text;
  if (changed) writeSecret(file, text);
  return { file, changed, pidFile };
}

/**
 * Starts the stack's NATS server if it is not running, or has it read its configuration again
 * when that changed (a new subject prefix, a rotated password): nats-server reloads on SIGHUP
 * without dropping a connection. Like the Kafka broker, it outlives the script that started it.
 */
async function ensureNatsServer(server, natsServerBinary) {
  const config = writeServerConfig(server);
  const pid = runningPid(config.pidFile);
  if (pid && (await canConnect('127.0.0.1', server.port))) {
    if (config.changed) process.kill(pid, 'SIGHUP');
    return;
  }
  if (await canConnect('127.0.0.1', server.port)) throw new Error(`127.0.0.1:${server.port} answers, but not the stack's NATS server (${config.pidFile}): stop what listens there`);
  spawn(natsServerBinary(), ['-c', config.file], { detached: true, stdio: 'ignore' }).unref();
  await waitForPort(server.port, `nats-server (configuration ${config.file})`);
}

/** Stops a server that `ensureNatsServer` started (the security benchmark's own, once measured). */
async function stopNatsServer(server) {
  const pid = runningPid(path.join(server.dir, 'nats.pid'));
  if (!pid) return;
  process.kill(pid, 'SIGTERM');
  while (runningPid(path.join(server.dir, 'nats.pid')) && (await canConnect('127.0.0.1', server.port))) await new Promise((resolve) => setTimeout(resolve, 100));
}

/**
 * nats.js `connect` options for a script that speaks NATS itself (the benchmarks' load and
 * stand-ins), from a process's variables: as libs/rpc's natsConnectionOptions, which it cannot load.
 */
function natsClientOptions(env) {
  if (!env.NATS_USER && env.BUS_SECURITY_OFF_BENCH_ONLY === 'true') return { servers: env.NATS_SERVERS.split(','), inboxPrefix: '_INBOX' };
  const user = env.NATS_USER;
  return {
    servers: env.NATS_SERVERS.split(','),
    user,
    pass: fs.readFileSync(env.NATS_PASSWORD_FILE, 'utf8').trim(),
    tls: { caFile: env.NATS_TLS_CA_FILE },
    inboxPrefix: `_INBOX.${user}`,
  };
}

module.exports = { NATS_PORT, CLUSTER_NATS_PORT, TEST_NATS, IDENTITIES, natsServer, ensureNatsServer, stopNatsServer, natsClientOptions };

// `node tools/stack/nats.cjs test-server`: the unit and integration suites' server, started if
// needed; prints the variables that reach it (paths only, never a password). Jest's global setup runs it.
if (require.main === module && process.argv[2] === 'test-server') {
  const server = natsServer(TEST_NATS.port, TEST_NATS.subjectPrefix, { harness: true });
  ensureNatsServer(server, () => require('./stack.cjs').installPackage('nats-server', 'nats-server')).then(
    () => process.stdout.write(`${JSON.stringify({ NATS_SERVERS: server.url, NATS_TLS_CA_FILE: server.caFile, PETSTORE_NATS_DIR: server.dir })}\n`),
    (error) => {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    },
  );
}
