import { ConfigError, list, oneOf, optionalStr, refuseUnsecuredBus, secretFile, type ConfigShape, type Env } from '@petstore/config';
import { natsInboxPrefix } from '@petstore/contracts';
import { join } from 'node:path';

export { rpcSubject } from '@petstore/contracts';

/** `nats`: every replica in a queue group, balanced and drained by the NATS server. `tcp`: one address per service. */
export const RPC_TRANSPORTS = ['nats', 'tcp'] as const;
export type RpcTransportKind = (typeof RPC_TRANSPORTS)[number];

/** Who this process is to the NATS server, and how it knows the server is the real one. */
export interface NatsCredentials {
  user: string;
  password: string;
  /** The CA that signed the server's certificate: the connection is TLS, and the server verified. */
  caFile: string;
}

/**
 * No user and no TLS: what a process connects with only under BUS_SECURITY_OFF_BENCH_ONLY=true,
 * to the plain NATS server of the benchmark that measures what the credentials and TLS cost.
 */
export const NATS_UNSECURED = 'unsecured';
export type NatsAccess = NatsCredentials | typeof NATS_UNSECURED;

export interface RpcTransportConfig {
  rpcTransport: RpcTransportKind;
  natsServers: string[];
  /** Prefix of every RPC subject: stacks that share one NATS server never answer each other. */
  natsSubjectPrefix: string;
  /** Undefined only with RPC_TRANSPORT=tcp; NATS_UNSECURED only in the benchmark of the bus's security. */
  nats: NatsAccess | undefined;
}

const SUBJECT_PREFIX = /^[a-zA-Z0-9._-]{0,100}$/;
const NATS_USER = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * The TCP transport has no authentication and no encryption: anyone who reaches a service's port
 * may send it anything. It is kept to compare transports in the benchmarks, on one machine, and
 * refuses to start unless this variable says so.
 */
export const RPC_TCP_BENCH_ONLY = 'RPC_TCP_BENCH_ONLY';

/** A file that must be there and not empty with RPC_TRANSPORT=nats: its content. */
function requiredFile(env: Env, variable: string): string {
  const text = secretFile(variable)(env);
  if (text === undefined) throw new ConfigError(variable, 'is required with RPC_TRANSPORT=nats but not set');
  return text;
}

/** RPC_TRANSPORT, NATS_SERVERS, NATS_SUBJECT_PREFIX and the NATS credentials: spread into the shape of every process that sends or serves RPC. */
export const rpcTransportConfigShape: ConfigShape<RpcTransportConfig> = {
  rpcTransport: (env: Env) => {
    const transport = oneOf('RPC_TRANSPORT', RPC_TRANSPORTS, 'nats')(env);
    if (transport === 'tcp' && env[RPC_TCP_BENCH_ONLY]?.trim() !== 'true') {
      throw new ConfigError('RPC_TRANSPORT', `tcp has no authentication and serves only benchmarks on one machine: set ${RPC_TCP_BENCH_ONLY}=true there, or use nats`);
    }
    return transport;
  },
  natsServers: list('NATS_SERVERS', 'nats://127.0.0.1:4322'),
  natsSubjectPrefix: (env: Env) => {
    const prefix = env['NATS_SUBJECT_PREFIX']?.trim() ?? '';
    if (!SUBJECT_PREFIX.test(prefix)) throw new ConfigError('NATS_SUBJECT_PREFIX', `must be at most 100 of a-z A-Z 0-9 . _ - (got "${prefix}")`);
    return prefix;
  },
  nats: (env: Env) => {
    if (env['RPC_TRANSPORT']?.trim() === 'tcp') return undefined;
    const user = optionalStr('NATS_USER')(env);
    if (!user) {
      refuseUnsecuredBus(env, 'NATS_USER', 'is required with RPC_TRANSPORT=nats but not set');
      return NATS_UNSECURED;
    }
    if (!NATS_USER.test(user)) throw new ConfigError('NATS_USER', `must be 1 to 64 of a-z A-Z 0-9 _ - (got "${user}")`);
    requiredFile(env, 'NATS_TLS_CA_FILE');
    return { user, password: requiredFile(env, 'NATS_PASSWORD_FILE'), caFile: (env['NATS_TLS_CA_FILE'] as string).trim() };
  },
};

/** How a configuration that uses NATS connects to it (read with it, and required). */
export function natsAccessOf(config: RpcTransportConfig): NatsAccess {
  if (!config.nats) throw new Error('RPC over NATS needs the NATS credentials (NATS_USER, NATS_PASSWORD_FILE, NATS_TLS_CA_FILE)');
  return config.nats;
}

/** The NATS credentials of a configuration that uses NATS with them, as every one outside the security benchmark does. */
export function natsCredentialsOf(config: RpcTransportConfig): NatsCredentials {
  const access = natsAccessOf(config);
  if (access === NATS_UNSECURED) throw new Error('This configuration connects to NATS without credentials (BUS_SECURITY_OFF_BENCH_ONLY)');
  return access;
}

/** The options of nats.js's `connect` (through Nest's NATS transport) that prove who this process is and check the server. */
export function natsConnectionOptions(access: NatsAccess) {
  if (access === NATS_UNSECURED) return { inboxPrefix: '_INBOX' };
  return { user: access.user, pass: access.password, tls: { caFile: access.caFile }, inboxPrefix: natsInboxPrefix(access.user) };
}

/**
 * NATS_USER and NATS_PASSWORD_FILE of `user` on a server whose folder holds `<user>.password`, as
 * the stack tools lay them out (tools/stack/src/nats.ts); the test suites' server's folder is
 * PETSTORE_NATS_DIR, set by Jest's global setup.
 */
export function natsUserEnv(user: string, dir = process.env['PETSTORE_NATS_DIR']): Env {
  if (!dir) throw new Error('PETSTORE_NATS_DIR is not set: run the tests through Jest (its global setup starts the test NATS server)');
  return { NATS_USER: user, NATS_PASSWORD_FILE: join(dir, `${user}.password`) };
}
