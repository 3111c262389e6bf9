// The stacks' own NATS servers: one per stack, on a port of its own, with TLS and a user per
// process whose permissions come from libs/contracts (RPC_CALLS). Certificates, passwords and the
// server configuration live in the stack's cache folder, readable by this user only.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { NATS_IDENTITIES, NATS_SERVER_ENVIRONMENT, natsServerConfig, type NatsServerConfigOptions } from '@petstore/contracts';
import { CACHE } from './paths';
import { canConnect, ensureCertificates, passwordFile, runningPid, waitForPort, writeSecret } from './secrets';

/** Who connects to a stack's NATS server: every process, each as its own user. */
export const IDENTITIES = NATS_IDENTITIES;
/** The development stack's NATS; the others follow the ports scheme (+10000 end-to-end, +20000 bench, +25000 chaos). */
export const NATS_PORT = 4322;
/** The scaled stack's (`npm run cluster`; +25000 in the chaos run's). */
export const CLUSTER_NATS_PORT = 4332;
/** The server every unit and integration suite shares, each on a one-token namespace of its own (the subject prefix `*.`). */
export const TEST_NATS = { port: 4342, subjectPrefix: '*.' };

/** The variables a process reaches its stack's NATS server with (libs/rpc natsConnectionOptions). */
export type NatsEnv = Record<string, string>;

/** A stack's NATS server as `natsServer` lays it out; `envOf(identity)` is what that process connects with. */
export interface NatsServer {
  port: number;
  dir: string;
  url: string;
  subjectPrefix: string;
  /** Absent when `unsecured`. */
  caFile?: string;
  harness?: boolean;
  unsecured?: boolean;
  envOf(identity: string): NatsEnv;
}

function natsDir(port: number): string {
  return path.join(CACHE, `nats-${port}`);
}

/**
 * The NATS server of the stack that listens on `port`: its folder, CA and passwords (made on first
 * use), and the variables each process connects with. Synchronous, so a layout has them at once.
 * `unsecured`: no TLS and no users, for the benchmark of what they cost only; its processes
 * connect with BUS_SECURITY_OFF_BENCH_ONLY=true, without which they refuse such a server.
 */
export function natsServer(port: number, subjectPrefix: string, { harness = false, unsecured = false }: { harness?: boolean; unsecured?: boolean } = {}): NatsServer {
  const dir = natsDir(port);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const url = `nats://127.0.0.1:${port}`;
  if (unsecured) return { port, dir, url, subjectPrefix, unsecured, envOf: () => ({ NATS_SERVERS: url }) };
  ensureCertificates(dir);
  const caFile = path.join(dir, 'ca.pem');
  const envOf = (identity: string) => ({ NATS_SERVERS: url, NATS_USER: identity, NATS_PASSWORD_FILE: passwordFile(dir, identity), NATS_TLS_CA_FILE: caFile });
  return { port, dir, url, subjectPrefix, caFile, envOf, harness };
}

interface WrittenConfig {
  file: string;
  changed: boolean;
  pidFile: string;
}

function writeIfChanged(file: string, text: string): boolean {
  const changed = !fs.existsSync(file) || fs.readFileSync(file, 'utf8') !== text;
  if (changed) writeSecret(file, text);
  return changed;
}

/** The server's configuration, generated from libs/contracts. */
function writeServerConfig(server: NatsServer): WrittenConfig {
  if (server.unsecured) return writeUnsecuredConfig(server);
  const password = (identity: string) => fs.readFileSync(server.envOf(identity).NATS_PASSWORD_FILE, 'utf8').trim();
  const options = {
    listen: `127.0.0.1:${server.port}`,
    subjectPrefix: server.subjectPrefix,
    pidFile: path.join(server.dir, 'nats.pid'),
    tls: { certFile: path.join(server.dir, 'server.pem'), keyFile: path.join(server.dir, 'server.key') },
    users: IDENTITIES.map((identity) => ({ identity, user: identity, password: password(identity) })),
    ...(server.harness ? { harnessPassword: password('harness') } : {}),
  } satisfies NatsServerConfigOptions;
  const file = path.join(server.dir, 'nats.conf');
  return { file, changed: writeIfChanged(file, natsServerConfig(options)), pidFile: options.pidFile };
}

/** The benchmark's server without TLS and users: where it listens and writes its pid, nothing else. */
function writeUnsecuredConfig(server: NatsServer): WrittenConfig {
  const pidFile = path.join(server.dir, 'nats.pid');
  const text = `# No TLS, no users: the benchmark of what they cost only (BUS_SECURITY_OFF_BENCH_ONLY).\n${JSON.stringify({ listen: `127.0.0.1:${server.port}`, pid_file: pidFile }, null, 2)}\n`;
  const file = path.join(server.dir, 'nats.conf');
  return { file, changed: writeIfChanged(file, text), pidFile };
}

/**
 * Starts the stack's NATS server if it is not running, or has it read its configuration again
 * when that changed (a new subject prefix, a rotated password): nats-server reloads on SIGHUP
 * without dropping a connection. Like the Kafka broker, it outlives the script that started it.
 */
export async function ensureNatsServer(server: NatsServer, natsServerBinary: () => string): Promise<void> {
  const config = writeServerConfig(server);
  const pid = runningPid(config.pidFile);
  if (pid && (await canConnect('127.0.0.1', server.port))) {
    if (config.changed) process.kill(pid, 'SIGHUP');
    return;
  }
  if (await canConnect('127.0.0.1', server.port)) throw new Error(`127.0.0.1:${server.port} answers, but not the stack's NATS server (${config.pidFile}): stop what listens there`);
  spawn(natsServerBinary(), ['-c', config.file], { detached: true, stdio: 'ignore', env: { ...process.env, ...NATS_SERVER_ENVIRONMENT } }).unref();
  await waitForPort(server.port, `nats-server (configuration ${config.file})`);
}

/** Stops a server that `ensureNatsServer` started (the security benchmark's own, once measured). */
export async function stopNatsServer(server: NatsServer): Promise<void> {
  const pid = runningPid(path.join(server.dir, 'nats.pid'));
  if (!pid) return;
  process.kill(pid, 'SIGTERM');
  while (runningPid(path.join(server.dir, 'nats.pid')) && (await canConnect('127.0.0.1', server.port))) await new Promise((resolve) => setTimeout(resolve, 100));
}

/** nats.js `connect` options, as `natsClientOptions` returns them. */
export interface NatsClientOptions {
  servers: string[];
  inboxPrefix: string;
  user?: string;
  pass?: string;
  tls?: { caFile: string };
}

/**
 * nats.js `connect` options for a script that speaks NATS itself (the benchmarks' load and
 * stand-ins), from a process's variables, as libs/rpc's natsConnectionOptions reads them.
 */
export function natsClientOptions(env: Record<string, string | undefined>): NatsClientOptions {
  const servers = (env.NATS_SERVERS ?? '').split(',');
  if (!env.NATS_USER && env.BUS_SECURITY_OFF_BENCH_ONLY === 'true') return { servers, inboxPrefix: '_INBOX' };
  const user = env.NATS_USER as string;
  return {
    servers,
    user,
    pass: fs.readFileSync(env.NATS_PASSWORD_FILE as string, 'utf8').trim(),
    tls: { caFile: env.NATS_TLS_CA_FILE as string },
    inboxPrefix: `_INBOX.${user}`,
  };
}
