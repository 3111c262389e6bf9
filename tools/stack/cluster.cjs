// The stack in scaled form on one machine: three Kafka brokers, every tier as several replicas,
// HAProxy in front of the gateways. Used by `npm run cluster`, the chaos run's cluster scenarios
// and the bench's cluster section; everything else comes from stack.cjs.
'use strict';
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const stack = require('./stack.cjs');
const { CLUSTER_NATS_PORT } = require('./nats.cjs');
const { REDIS_PORT, redisServer } = require('./redis.cjs');

const CACHE = process.env.PETSTORE_CACHE ?? path.join(os.homedir(), '.cache/petstore');

/**
 * A three-node cluster of scripts/kafka.sh: node n listens on port + 10 × (n − 1), so the
 * development one takes 9192, 9202, 9212 (controllers one above), clear of the single broker
 * (9092), the end-to-end one (19092) and the chaos one (28092).
 */
const CLUSTER_KAFKA = { port: 9192, dataDir: path.join(CACHE, 'kafka-cluster') };

/** Replicas per tier in `npm run cluster`. */
const REPLICAS = { catalog: 2, orders: 2, inventory: 2, gateway: 2 };

/** Replica n of a tier listens on the tier's ports + 10 × n; the gateway's own ports stay the balancer's. */
const REPLICA_PORT_STEP = 10;

/**
 * How long a stopping gateway keeps serving after SIGTERM: requests HAProxy already sent on its
 * kept connections are served, not refused; after it, a refusal (503) is retried on the other.
 */
const GATEWAY_SHUTDOWN_DELAY_MS = 2000;

/**
 * How long HAProxy keeps a client's idle connection, and what it tells the client in `Keep-Alive`.
 * HAProxy would otherwise pass on the gateway's own hint (72 s, meant for HAProxy itself): a client
 * trusting it reuses a connection HAProxy has just closed, and that request fails without an answer.
 */
const CLIENT_KEEP_ALIVE_S = 10;

function brokersOf(kafka) {
  return [0, 1, 2].map((i) => `127.0.0.1:${kafka.port + 10 * i}`).join(',');
}

function kafkaEnv(kafka) {
  return {
    ...process.env,
    KAFKA_CLUSTER_PORT: String(kafka.port),
    KAFKA_CLUSTER_DATA_DIR: kafka.dataDir,
    // A broker that rejoins a busy cluster on a loaded two-core machine can take over a minute.
    KAFKA_WAIT_TIMEOUT: process.env.KAFKA_WAIT_TIMEOUT ?? '180',
  };
}

/** `scripts/kafka.sh cluster <command> [node]`, blocking (start-up and tear-down). */
function clusterKafka(command, kafka = CLUSTER_KAFKA, node) {
  const args = [path.join(stack.ROOT, 'scripts/kafka.sh'), 'cluster', command, ...(node ? [String(node)] : [])];
  const result = spawnSync('bash', args, { stdio: 'inherit', env: kafkaEnv(kafka) });
  if (result.status !== 0) throw new Error(`Kafka cluster ${command} failed (see the messages above)`);
}

/** The same, without blocking the load a fault test runs meanwhile; resolves with the output. */
function clusterKafkaAsync(command, kafka = CLUSTER_KAFKA, node) {
  return new Promise((resolve, reject) => {
    const args = [path.join(stack.ROOT, 'scripts/kafka.sh'), 'cluster', command, ...(node ? [String(node)] : [])];
    const child = spawn('bash', args, { env: kafkaEnv(kafka), stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.once('exit', (code) => (code === 0 ? resolve(output.trim()) : reject(new Error(`kafka.sh cluster ${command} ${node ?? ''} failed:\n${output}`))));
  });
}

/**
 * The scaled stack's layout: the single stack's (stack.cjs) with every replica on its own ports,
 * the topics replicated 3 times with 2 in sync, RPC over NATS, the rate limit counted in Redis.
 * Replicas are named `<tier>-<n>` (`orders-1`, `gateway-2`); more can be added later by name.
 */
function clusterLayout({ offset = 0, databaseSuffix = '_cluster', namespace = '', kafka = CLUSTER_KAFKA, replicas = REPLICAS, subjectPrefix = namespace || 'cluster.' } = {}) {
  const brokers = brokersOf(kafka);
  // RPC over NATS comes with stack.cjs's layout, on a NATS server of the cluster's own.
  const base = stack.stackLayout({
    offset,
    databaseSuffix,
    namespace,
    kafkaBrokers: brokers,
    kafkaSecrets: stack.kafkaSecretsDir(kafka),
    subjectPrefix,
    natsPort: CLUSTER_NATS_PORT + offset,
  });
  const shared = { KAFKA_REPLICATION_FACTOR: '3', KAFKA_MIN_INSYNC_REPLICAS: '2' };
  // Also the tiers' own: provisioning (stack.runMigrations) creates the topics with these settings.
  for (const tier of stack.SERVICES) Object.assign(base.envs[tier], shared);
  // The gateways count the rate limit in a Redis of the cluster's own, as its ACL user.
  const redis = redisServer(REDIS_PORT + offset);
  const shift = (value, n) => String(Number(value) + REPLICA_PORT_STEP * n);
  // Where replica 1 of a service serves RPC: the address the TCP transport (RPC_TRANSPORT=tcp) reaches.
  const rpcOfFirst = (tier) => `127.0.0.1:${shift(base.envs[tier].RPC_PORT, 1)}`;
  const envOf = (name) => {
    const [tier, number] = name.split('-');
    const n = Number(number);
    if (!base.envs[tier] || !Number.isInteger(n) || n < 1) throw new Error(`No such replica: ${name} (a tier and a number, e.g. orders-2)`);
    const env = { ...base.envs[tier], ...shared, HTTP_PORT: shift(base.envs[tier].HTTP_PORT, n) };
    if (tier === 'gateway') {
      Object.assign(env, {
        METRICS_PORT: shift(env.METRICS_PORT, n),
        CATALOG_RPC: rpcOfFirst('catalog'),
        ORDERS_RPC: rpcOfFirst('orders'),
        INVENTORY_RPC: rpcOfFirst('inventory'),
        ...redis.gatewayEnv,
        SHUTDOWN_DELAY_MS: String(GATEWAY_SHUTDOWN_DELAY_MS),
      });
    } else {
      Object.assign(env, { RPC_PORT: shift(env.RPC_PORT, n), CATALOG_RPC: rpcOfFirst('catalog') });
    }
    return env;
  };
  const names = (tier) => Array.from({ length: replicas[tier] ?? 0 }, (_, i) => `${tier}-${i + 1}`);
  const urlOf = (name) => `http://127.0.0.1:${envOf(name).HTTP_PORT}`;
  const metricsUrlOf = (name) => (name.startsWith('gateway') ? `http://127.0.0.1:${envOf(name).METRICS_PORT}` : urlOf(name));
  return {
    ...base,
    kafka,
    brokers,
    redis,
    envOf,
    urlOf,
    metricsUrlOf,
    services: stack.SERVICES.flatMap(names),
    gateways: names('gateway'),
    balancer: { port: Number(base.envs.gateway.HTTP_PORT), statsPort: Number(base.envs.gateway.HTTP_PORT) + 200 },
  };
}

// ---------------------------------------------------------------- machine services

/** The cluster's own NATS server and Redis. */
async function ensureNatsAndRedis(layout) {
  await stack.ensureNats(layout.nats);
  await stack.ensureRedis(layout.redis);
}

/** HAProxy from Debian's packages, installed on first use as Kafka is fetched on first use; its path. */
function ensureHaproxy() {
  return stack.installPackage('haproxy', 'haproxy');
}

// ---------------------------------------------------------------- the load balancer

/** An error HAProxy answers itself, in the API's Error shape (docs: API.md §4). */
function errorFile(status, reason, code, message) {
  const body = JSON.stringify({ code, message, status });
  return [`HTTP/1.1 ${status} ${reason}`, 'content-type: application/json', 'cache-control: no-store', `content-length: ${Buffer.byteLength(body)}`, 'connection: close', '', body].join('\r\n');
}

/**
 * HAProxy's configuration for the gateways. It checks a gateway's liveness, not its readiness:
 * a gateway is ready only when its services are, which every gateway shares, so a readiness
 * check would take all of them out at once and turn one service's trouble into a refusal of
 * every route. A stopping gateway is left by retries instead: a request that could not reach
 * one, or that one refused with 503 (not carried out, API.md §4), is sent to the other.
 * A broken connection after sending is an unknown outcome: 504.
 */
function haproxyConfig(layout, dir) {
  const files = {
    503: errorFile(503, 'Service Unavailable', 'SERVICE_UNAVAILABLE', 'No gateway is available; the request was not carried out'),
    504: errorFile(504, 'Gateway Timeout', 'UPSTREAM_TIMEOUT', 'The gateway did not answer in time; the outcome is unknown'),
    // Sent, then the connection broke: the outcome is unknown, which the API calls 504.
    502: errorFile(504, 'Gateway Timeout', 'UPSTREAM_TIMEOUT', 'The connection to the gateway broke; the outcome is unknown'),
  };
  for (const [status, content] of Object.entries(files)) fs.writeFileSync(path.join(dir, `${status}.http`), content);
  const servers = layout.gateways.map((name) => `  server ${name} 127.0.0.1:${layout.envOf(name).HTTP_PORT}`);
  return `# Generated by tools/stack/cluster.cjs for \`npm run cluster\`; rewritten at every start.
global
  maxconn 4096
  # No log target: the gateways log every request themselves.

defaults
  mode http
  timeout connect 2s
  timeout client 75s
  # Above the longest Prefer: wait (60 s) a gateway holds.
  timeout server 75s
  timeout http-request 10s
  timeout http-keep-alive ${CLIENT_KEEP_ALIVE_S}s
  option http-buffer-request
  # Not reached, or refused before being carried out: try the other gateway.
  retries 2
  retry-on conn-failure empty-response 503
  option redispatch 1
  errorfile 502 ${path.join(dir, '502.http')}
  errorfile 503 ${path.join(dir, '503.http')}
  errorfile 504 ${path.join(dir, '504.http')}

frontend api
  bind 127.0.0.1:${layout.balancer.port}
  # Every response carries X-Request-Id, also HAProxy's own errors.
  unique-id-format %{+X}o%ci%cp%fp%Ts%rt
  http-request set-header x-request-id %[unique-id] unless { req.hdr(x-request-id) -m found }
  http-request set-var(txn.request_id) req.hdr(x-request-id)
  http-after-response set-header x-request-id %[var(txn.request_id)] unless { res.hdr(x-request-id) -m found }
  http-after-response set-header keep-alive timeout=${CLIENT_KEEP_ALIVE_S}
  default_backend gateways

backend gateways
  balance roundrobin
  option httpchk GET /health/live
  http-check expect status 200
  # Only for a gateway that is gone: a stopping one is left by the retries above. Lenient, because a
  # gateway saturated by load answers its check late, and taking it out would only refuse more.
  timeout check 5s
  default-server check inter 1s fall 3 rise 2
${servers.join('\n')}

frontend stats
  bind 127.0.0.1:${layout.balancer.statsPort}
  http-request use-service prometheus-exporter if { path /metrics }
  stats enable
  stats uri /
  stats refresh 2s
`;
}

/** Starts HAProxy in the foreground as a child of this process, with a freshly written configuration. */
async function startBalancer(layout, { output = process.stdout } = {}) {
  const haproxy = ensureHaproxy();
  const dir = path.join(stack.ROOT, 'tmp', `haproxy-${layout.balancer.port}`);
  fs.mkdirSync(dir, { recursive: true });
  const configFile = path.join(dir, 'haproxy.cfg');
  fs.writeFileSync(configFile, haproxyConfig(layout, dir));
  const check = spawnSync(haproxy, ['-c', '-q', '-f', configFile], { encoding: 'utf8' });
  if (check.status !== 0) throw new Error(`HAProxy refused ${configFile}:\n${check.stdout}${check.stderr}`);
  const child = spawn(haproxy, ['-db', '-f', configFile], { stdio: ['ignore', 'pipe', 'pipe'] });
  for (const stream of [child.stdout, child.stderr]) stream.on('data', (chunk) => output.write(`[haproxy]   ${chunk}`));
  const deadline = Date.now() + 10_000;
  while (!(await stack.canConnect('127.0.0.1', layout.balancer.port))) {
    if (child.exitCode !== null) throw new Error(`HAProxy exited with code ${child.exitCode}`);
    if (Date.now() > deadline) throw new Error(`HAProxy did not open 127.0.0.1:${layout.balancer.port} within 10 s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return child;
}

/** Resolves once HAProxy sends requests to every gateway (each passed its checks). */
async function waitForBalancer(layout, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const response = await fetch(`http://127.0.0.1:${layout.balancer.statsPort}/;csv`, { signal: AbortSignal.timeout(1000) });
      const rows = (await response.text()).split('\n').filter((line) => line.startsWith('gateways,gateway-'));
      if (rows.length === layout.gateways.length && rows.every((row) => row.split(',')[17] === 'UP')) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`HAProxy did not see every gateway up within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

// ---------------------------------------------------------------- the replicas

/**
 * Starts every replica (the services side by side, then the gateways) and the balancer. `start`
 * and `stop` act on one replica by name; `stopAll` takes everything down, gateways first.
 */
async function startCluster(layout, { output = process.stdout, extraEnv = {} } = {}) {
  const processes = new Map();
  const start = async (name, env = {}) => {
    const child = stack.startProcess(name.split('-')[0], { ...layout.envOf(name), ...env }, { output, extraEnv });
    processes.set(name, child);
    await stack.waitUntilReady(layout.urlOf(name), child, 90_000);
    return child;
  };
  let balancer;
  const stopAll = async () => {
    await stack.stopProcess(balancer);
    await Promise.all(layout.gateways.map((name) => stack.stopProcess(processes.get(name), 20_000)));
    await Promise.all(layout.services.map((name) => stack.stopProcess(processes.get(name), 20_000)));
  };
  try {
    await Promise.all(layout.services.map((name) => start(name)));
    await Promise.all(layout.gateways.map((name) => start(name)));
    balancer = await startBalancer(layout, { output });
    await waitForBalancer(layout);
  } catch (error) {
    await stopAll();
    throw error;
  }
  return { processes, start, stopAll, balancer: () => balancer };
}

module.exports = {
  CLUSTER_KAFKA,
  CLIENT_KEEP_ALIVE_S,
  REPLICAS,
  brokersOf,
  clusterKafka,
  clusterKafkaAsync,
  clusterLayout,
  ensureNatsAndRedis,
  ensureHaproxy,
  haproxyConfig,
  startBalancer,
  waitForBalancer,
  startCluster,
};
