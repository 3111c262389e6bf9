// Starts and stops the whole stack on one machine: used by `npm start`, the end-to-end
// tests and the benchmarks, so all three run the same processes the same way.
'use strict';
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const nats = require('./nats.cjs');
const redis = require('./redis.cjs');
const { canConnect } = require('./secrets.cjs');


const ROOT = path.resolve(__dirname, '../..');
const SERVICES = ['catalog', 'orders', 'inventory'];
const APPS = [...SERVICES, 'gateway'];
const DEV_API_KEY = 'dev-key-0123456789';

/**
 * Ports and names of one stack; `offset` moves every port so a test stack can run beside a dev stack.
 * Each stack has a NATS server of its own (TLS, a user per process allowed its own subjects only);
 * its RPC subjects carry its namespace (the development stack's: `dev.`).
 * `unsecured`: for the benchmark of what the bus's security costs only, a stack whose processes
 * connect to `kafkaBrokers` (a plaintext broker) and to their NATS server without credentials or
 * TLS, as BUS_SECURITY_OFF_BENCH_ONLY=true, which each of them requires for that, lets them.
 */
function stackLayout({
  offset = 0,
  databaseSuffix = '',
  namespace = '',
  kafkaBrokers = process.env.KAFKA_BROKERS ?? '127.0.0.1:9092',
  kafkaSecrets = kafkaSecretsDir(),
  subjectPrefix = namespace || 'dev.',
  natsPort = nats.NATS_PORT + offset,
  unsecured = false,
} = {}) {
  const natsServer = nats.natsServer(natsPort, subjectPrefix, { unsecured });
  // Who each process is to Kafka; with the bus unsecured, nobody.
  const kafkaIdentity = unsecured ? () => ({}) : (principal) => kafkaCredentials(kafkaSecrets, principal);
  const rpcTransport = (identity) => ({
    RPC_TRANSPORT: process.env.RPC_TRANSPORT ?? 'nats',
    ...(process.env.RPC_TRANSPORT === 'tcp' ? { RPC_TCP_BENCH_ONLY: process.env.RPC_TCP_BENCH_ONLY } : {}),
    NATS_SUBJECT_PREFIX: subjectPrefix,
    ...natsServer.envOf(identity),
    ...(unsecured ? { BUS_SECURITY_OFF_BENCH_ONLY: 'true' } : {}),
  });
  const http = { gateway: 3000, catalog: 3001, orders: 3002, inventory: 3003 };
  const rpc = { catalog: 4001, orders: 4002, inventory: 4003 };
  const port = (n) => n + offset;
  const rpcAddress = (name) => `127.0.0.1:${port(rpc[name])}`;
  const envs = {};
  for (const name of SERVICES) {
    // Each service serves as its own role, named after its database, that can reach that database only;
    // `migrate` runs as the owner (postgres) and gives the role its grants (libs/database).
    const database = `petstore_${name}${databaseSuffix}`;
    envs[name] = {
      HTTP_PORT: String(port(http[name])),
      RPC_PORT: String(port(rpc[name])),
      HOST: '127.0.0.1',
      DATABASE_URL: `postgres://${database}@127.0.0.1:5432/${database}`,
      MIGRATION_DATABASE_URL: `postgres://postgres@127.0.0.1:5432/${database}`,
      KAFKA_BROKERS: kafkaBrokers,
      KAFKA_NAMESPACE: namespace,
      // Each service is its own Kafka principal, allowed only its own topics and group.
      ...kafkaIdentity(name),
      CATALOG_RPC: rpcAddress('catalog'),
      ...rpcTransport(name),
    };
  }
  envs.gateway = {
    HTTP_PORT: String(port(http.gateway)),
    // GET /metrics of the gateway: on its own port, the public one only serves the API.
    METRICS_PORT: String(port(http.gateway + 100)),
    HOST: process.env.HOST ?? '127.0.0.1',
    CATALOG_RPC: rpcAddress('catalog'),
    ORDERS_RPC: rpcAddress('orders'),
    INVENTORY_RPC: rpcAddress('inventory'),
    ...rpcTransport('gateway'),
  };
  const urls = Object.fromEntries(APPS.map((name) => [name, `http://127.0.0.1:${port(http[name])}`]));
  // Where each process serves GET /metrics: the services on their HTTP port, the gateway on METRICS_PORT.
  const metricsUrls = { ...urls, gateway: `http://127.0.0.1:${envs.gateway.METRICS_PORT}` };
  return { envs, urls, metricsUrls, kafkaSecrets: unsecured ? undefined : kafkaSecrets, nats: natsServer };
}

const CACHE = process.env.PETSTORE_CACHE ?? path.join(os.homedir(), '.cache/petstore');

/** Where scripts/kafka.sh keeps a broker's CA and the principals' passwords (its KAFKA_SECRETS_DIR). */
function kafkaSecretsDir(broker) {
  if (broker) return path.join(broker.dataDir, 'secrets');
  return process.env.KAFKA_SECRETS_DIR ?? path.join(process.env.KAFKA_DATA_DIR ?? path.join(CACHE, 'kafka-data'), 'secrets');
}

/**
 * kafkajs's `ssl` and `sasl` settings of `principal`, for the plain-JavaScript scripts (chaos
 * checks, bench) that cannot import libs/kafka's kafkaConnectionSettings, which this mirrors.
 */
function kafkaClientAuth(secretsDir, principal) {
  const read = (file) => fs.readFileSync(path.join(secretsDir, file), 'utf8').trim();
  return {
    ssl: { ca: [read('ca.pem')], rejectUnauthorized: true },
    sasl: { mechanism: 'scram-sha-512', username: principal, password: read(`${principal}.password`) },
  };
}

/** The variables that make a process `principal` to Kafka (libs/kafka kafkaSecurityFromEnv). */
function kafkaCredentials(secretsDir, principal) {
  return {
    KAFKA_SASL_USERNAME: principal,
    KAFKA_SASL_PASSWORD_FILE: path.join(secretsDir, `${principal}.password`),
    KAFKA_TLS_CA_FILE: path.join(secretsDir, 'ca.pem'),
  };
}

async function ensurePostgres() {
  if (await canConnect('127.0.0.1', 5432)) return;
  throw new Error(
    'PostgreSQL is not answering on 127.0.0.1:5432. Start it (on Debian: ' +
      "`pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start`) or install it " +
      '(`apt-get install postgresql`); the stack needs a server that accepts user postgres without a password.',
  );
}


/** Debian's package of a server, installed on first use as Kafka is fetched on first use. */
function installPackage(pkg, binary) {
  const found = spawnSync('sh', ['-c', `command -v ${binary} || ls /usr/sbin/${binary} /usr/bin/${binary} 2>/dev/null | head -1`], { encoding: 'utf8' });
  const existing = found.stdout.trim().split('\n')[0];
  if (existing) return existing;
  process.stderr.write(`${binary} is missing: installing Debian's ${pkg}\n`);
  const install = () => spawnSync('apt-get', ['install', '-y', '-q', pkg], { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  if (install().status !== 0) {
    spawnSync('apt-get', ['update', '-q'], { stdio: 'inherit' });
    if (install().status !== 0) throw new Error(`Installing ${pkg} failed: run \`apt-get install ${pkg}\` as root`);
  }
  return installPackage(pkg, binary);
}

/**
 * The stack's own NATS server (`layout.nats`), started, or reloaded with the layout's subject
 * prefix; Debian's `nats-server` package is installed first if it is missing. The machine's NATS
 * on 4222, if any, is never used: it lets anyone in.
 */
async function ensureNats(server) {
  await nats.ensureNatsServer(server, () => installPackage('nats-server', 'nats-server'));
}

/**
 * A stack's own Redis (tools/stack/redis.cjs), for the rate limit several gateways share: started,
 * or its ACL loaded again; Debian's `redis-server` package is installed first if it is missing.
 */
async function ensureRedis(server) {
  await redis.ensureRedisServer(server, () => installPackage('redis-server', 'redis-server'));
}

/**
 * The end-to-end tests run their own broker: their fault tests stop it, which must not
 * disturb a development stack or other suites using the default one.
 */
const E2E_KAFKA = {
  port: 19092,
  controllerPort: 19093,
  dataDir: path.join(CACHE, 'kafka-data-e2e'),
};

/** `broker.plaintext`: the security benchmark's broker, which admits anyone (scripts/kafka.sh KAFKA_PLAINTEXT). */
function kafka(command, broker) {
  const env = { ...process.env };
  if (broker) {
    Object.assign(env, { KAFKA_PORT: String(broker.port), KAFKA_CONTROLLER_PORT: String(broker.controllerPort), KAFKA_DATA_DIR: broker.dataDir });
    if (broker.plaintext) Object.assign(env, { KAFKA_PLAINTEXT: 'true', BUS_SECURITY_OFF_BENCH_ONLY: 'true' });
  }
  const result = spawnSync('bash', [path.join(ROOT, 'scripts/kafka.sh'), command], { stdio: 'inherit', env });
  if (result.status !== 0) throw new Error(`Kafka ${command} failed (see the messages above)`);
}

function ensureKafka(broker) {
  kafka('start', broker);
}

function build(apps = APPS) {
  const result = spawnSync('npx', ['nx', 'run-many', '-t', 'build', '-p', ...apps, '--outputStyle=static'], {
    cwd: ROOT,
    stdio: 'inherit',
    env: { ...process.env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true', NX_TUI: 'false' },
  });
  if (result.status !== 0) throw new Error('The build failed (see the messages above)');
}

function mainOf(app) {
  return path.join(ROOT, 'dist/apps', app, 'main.js');
}

function runMigrations(layout, extraEnv = {}) {
  for (const name of SERVICES) {
    const result = spawnSync(process.execPath, [mainOf(name), 'migrate'], {
      stdio: 'inherit',
      env: { ...process.env, ...extraEnv, ...layout.envs[name] },
    });
    if (result.status !== 0) throw new Error(`Migrations of ${name} failed`);
  }
  provisionKafka(layout, extraEnv);
}

/**
 * Kafka's topics and ACLs, provisioned like the databases before any service starts, as the
 * administrator (an unsecured layout's plaintext broker knows no one: there, anonymously).
 */
function provisionKafka(layout, extraEnv = {}) {
  const result = spawnSync(process.execPath, [mainOf(SERVICES[0]), 'kafka-provision'], {
    stdio: 'inherit',
    env: { ...process.env, ...extraEnv, ...layout.envs[SERVICES[0]], ...(layout.kafkaSecrets ? kafkaCredentials(layout.kafkaSecrets, 'admin') : {}) },
  });
  if (result.status !== 0) throw new Error('Provisioning the Kafka topics and ACLs failed');
}

/** Drops the stack's databases: test stacks start from nothing. Refuses names that do not mark a test database. */
async function dropDatabases(layout) {
  const { Client } = require('pg');
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

/** How many of a process's last output lines a start-up failure quotes. */
const OUTPUT_TAIL_LINES = 30;

function prefixLines(stream, label, out, tail) {
  let pending = '';
  stream.on('data', (chunk) => {
    pending += chunk;
    const lines = pending.split('\n');
    pending = lines.pop();
    for (const line of lines) {
      out.write(`${label} ${line}\n`);
      tail.push(line);
      if (tail.length > OUTPUT_TAIL_LINES) tail.shift();
    }
  });
}

/** `nodeArgs` go to node itself (`--cpu-prof`, `--inspect`) when a run needs a closer look. */
/**
 * `outputFd`, a file opened for appending, takes the process's output directly, unlabelled: for
 * a process that must outlive the code that started it (a test file that restarts a service).
 */
function startProcess(app, env, { output = process.stdout, outputFd, extraEnv = {}, nodeArgs = [] } = {}) {
  const child = spawn(process.execPath, [...nodeArgs, mainOf(app)], {
    env: { ...process.env, ...extraEnv, ...env },
    stdio: outputFd === undefined ? ['ignore', 'pipe', 'pipe'] : ['ignore', outputFd, outputFd],
  });
  if (outputFd !== undefined) return child;
  const label = `[${app}]`.padEnd(12);
  // Kept so that a process that dies while starting says why, even when `output` is a file.
  child.outputTail = [];
  prefixLines(child.stdout, label, output, child.outputTail);
  prefixLines(child.stderr, label, output, child.outputTail);
  return child;
}

async function waitUntilReady(url, child, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      const tail = (child.outputTail ?? []).join('\n');
      throw new Error(`${url} exited with code ${child.exitCode} before it was ready; its last output:\n${tail}`);
    }
    try {
      const response = await fetch(`${url}/health/ready`, { signal: AbortSignal.timeout(1000) });
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url}/health/ready did not answer 200 within ${timeoutMs / 1000} s`);
}

function stopProcess(child, timeoutMs = 10_000) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** Starts the services, then the gateway, each once the ones before it are ready. */
async function startStack(layout, options = {}) {
  if (layout.envs.gateway.RPC_TRANSPORT === 'nats') await ensureNats(layout.nats);
  const processes = {};
  const stop = async () => {
    for (const app of [...APPS].reverse()) await stopProcess(processes[app]);
  };
  try {
    await Promise.all(
      SERVICES.map(async (name) => {
        processes[name] = startProcess(name, layout.envs[name], options);
        await waitUntilReady(layout.urls[name], processes[name]);
      }),
    );
    processes.gateway = startProcess('gateway', layout.envs.gateway, options);
    await waitUntilReady(layout.urls.gateway, processes.gateway);
  } catch (error) {
    await stop();
    throw error;
  }
  return { processes, stop };
}

module.exports = {
  ROOT,
  SERVICES,
  APPS,
  DEV_API_KEY,
  stackLayout,
  canConnect,
  ensurePostgres,
  ensureKafka,
  ensureNats,
  ensureRedis,
  installPackage,
  kafka,
  E2E_KAFKA,
  kafkaSecretsDir,
  kafkaCredentials,
  kafkaClientAuth,
  build,
  mainOf,
  runMigrations,
  provisionKafka,
  dropDatabases,
  startProcess,
  stopProcess,
  waitUntilReady,
  startStack,
};
