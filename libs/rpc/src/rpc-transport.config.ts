import { ConfigError, list, oneOf, type ConfigShape, type Env } from '@petstore/config';

/** `nats`: every replica in a queue group, balanced and drained by the NATS server. `tcp`: one address per service. */
export const RPC_TRANSPORTS = ['nats', 'tcp'] as const;
export type RpcTransportKind = (typeof RPC_TRANSPORTS)[number];

export interface RpcTransportConfig {
  rpcTransport: RpcTransportKind;
  natsServers: string[];
  /** Prefix of every RPC subject: stacks that share one NATS server never answer each other. */
  natsSubjectPrefix: string;
}

const SUBJECT_PREFIX = /^[a-zA-Z0-9._-]{0,100}$/;

/** RPC_TRANSPORT, NATS_SERVERS and NATS_SUBJECT_PREFIX: spread into the shape of every process that sends or serves RPC. */
export const rpcTransportConfigShape: ConfigShape<RpcTransportConfig> = {
  rpcTransport: oneOf('RPC_TRANSPORT', RPC_TRANSPORTS, 'nats'),
  natsServers: list('NATS_SERVERS', 'nats://127.0.0.1:4222'),
  natsSubjectPrefix: (env: Env) => {
    const prefix = env['NATS_SUBJECT_PREFIX']?.trim() ?? '';
    if (!SUBJECT_PREFIX.test(prefix)) throw new ConfigError('NATS_SUBJECT_PREFIX', `must be at most 100 of a-z A-Z 0-9 . _ - (got "${prefix}")`);
    return prefix;
  },
};

/**
 * The NATS subject of one RPC: `<prefix><service>.<cmd>`, e.g. `catalog.pets.get`. The service is
 * part of the subject because some patterns (the health check) are answered by every service.
 * The prefix is used as is; by convention it ends with a dot, like KAFKA_NAMESPACE.
 */
export function rpcSubject(prefix: string, service: string, cmd: string): string {
  return `${prefix}${service}.${cmd}`;
}
