// The stacks' own NATS servers: one per stack, on a port of its own, with TLS and a user per
// process whose permissions come from libs/contracts (RPC_CALLS). Certificates, passwords and the
// server configuration live in the stack's cache folder, readable by this user only.
'use strict';
const { spawn, spawnSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '../..');
const CACHE = process.env.PETSTORE_CACHE ?? path.join(os.homedir(), '.cache/petstore');
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

/** Writes `content` readable by this user only, without ever printing it. */
function writeSecret(file, content) {
  fs.writeFileSync(file, content, { mode: 0o600 });
  fs.chmodSync(file, 0o600);
}

function openssl(args, dir) {
  const result = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`openssl ${args[0]} failed: ${result.stderr.trim()}`);
}

/** A CA, and a server certificate for 127.0.0.1 and localhost signed by it, made once (kept for 10 years). */
function ensureCertificates(dir) {
  if (fs.existsSync(path.join(dir, 'server.pem'))) return;
  const days = '3650';
  openssl(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', days, '-subj', '/CN=petstore stack CA'], dir);
  openssl(['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost'], dir);
  fs.writeFileSync(path.join(dir, 'server.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  openssl(['x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.pem', '-days', days, '-extfile', 'server.ext'], dir);
  for (const file of ['server.csr', 'server.ext', 'ca.srl']) fs.rmSync(path.join(dir, file), { force: true });
  for (const file of ['ca.key', 'ca.pem', 'server.key', 'server.pem']) fs.chmodSync(path.join(dir, file), 0o600);
}

/** `<identity>.password`: a random password per process, made once. */
function passwordFile(dir, identity) {
  const file = path.join(dir, `${identity}.password`);
  if (!fs.existsSync(file)) writeSecret(file, crypto.randomBytes(24).toString('base64url'));
  return file;
}

/**
 * The NATS server of the stack that listens on `port`: its folder, CA and passwords (made on first
 * use), and the variables each process connects with. Synchronous, so a layout has them at once.
 */
function natsServer(port, subjectPrefix, { harness = false } = {}) {
  const dir = natsDir(port);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  ensureCertificates(dir);
  const url = `nats://127.0.0.1:${port}`;
  const caFile = path.join(dir, 'ca.pem');
  const envOf = (identity) => ({ NATS_SERVERS: url, NATS_USER: identity, NATS_PASSWORD_FILE: passwordFile(dir, identity), NATS_TLS_CA_FILE: caFile });
  return { port, dir, url, subjectPrefix, caFile, envOf, harness };
}

/** Generates the server's configuration from libs/contracts (TypeScript, run through SWC as libs/contracts' own generators are). */
function writeServerConfig(server) {
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

function canConnect(port) {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

function runningPid(pidFile) {
  try {
    const pid = Number(fs.readFileSync(pidFile, 'utf8').trim());
    process.kill(pid, 0);
    return pid;
  } catch {
    return undefined;
  }
}

/**
 * Starts the stack's NATS server if it is not running, or has it read its configuration again
 * when that changed (a new subject prefix, a rotated password): nats-server reloads on SIGHUP
 * without dropping a connection. Like the Kafka broker, it outlives the script that started it.
 */
async function ensureNatsServer(server, natsServerBinary) {
  const config = writeServerConfig(server);
  const pid = runningPid(config.pidFile);
  if (pid && (await canConnect(server.port))) {
    if (config.changed) process.kill(pid, 'SIGHUP');
    return;
  }
  if (await canConnect(server.port)) throw new Error(`127.0.0.1:${server.port} answers, but not the stack's NATS server (${config.pidFile}): stop what listens there`);
  spawn(natsServerBinary(), ['-c', config.file], { detached: true, stdio: 'ignore' }).unref();
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (await canConnect(server.port)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`nats-server did not answer on 127.0.0.1:${server.port} within 10 s (configuration ${config.file})`);
}

/**
 * nats.js `connect` options for a script that speaks NATS itself (the benchmarks' load and
 * stand-ins), from a process's variables: as libs/rpc's natsConnectionOptions, which it cannot load.
 */
function natsClientOptions(env) {
  const user = env.NATS_USER;
  return {
    servers: env.NATS_SERVERS.split(','),
    user,
    pass: fs.readFileSync(env.NATS_PASSWORD_FILE, 'utf8').trim(),
    tls: { caFile: env.NATS_TLS_CA_FILE },
    inboxPrefix: `_INBOX.${user}`,
  };
}

/** Stops the stack's NATS server, if it runs. */
function stopNatsServer(server) {
  const pid = runningPid(path.join(server.dir, 'nats.pid'));
  if (pid) process.kill(pid, 'SIGTERM');
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
