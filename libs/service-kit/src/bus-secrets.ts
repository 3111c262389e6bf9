import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NATS_IDENTITIES, natsServerConfig } from '@petstore/contracts';

/**
 * Where `node main.js bus-secrets` writes, each folder a volume of its own in docker-compose.yml so
 * that every container mounts only what it needs: `<identity>/` the process's passwords, `nats/`
 * and `redis/` the servers' configuration and keys, `ca/` the CA certificate everybody trusts.
 */
export const BUS_SECRETS_ROOT = '/var/lib/petstore';

/** The gateways' Redis user, and the keys and commands it may use: rate-limiter-flexible's script (EVALSHA, EVAL when it is not cached) and what the script calls. */
export const RATE_LIMIT_REDIS_USER = 'ratelimit';
export const RATE_LIMIT_REDIS_ACL = '~petstore:rate:* resetchannels -@all +evalsha +eval +set +incrby +pttl +expire';

export interface BusSecretsLayout {
  root: string;
  /** The NATS server's host name, in its certificate. */
  natsHost: string;
  /** The Redis server's host name, in its certificate. */
  redisHost: string;
  /** The port the NATS server listens on inside its container. */
  natsPort: number;
}

/** Written readable by its owner only (the services' user, which also runs the servers), never printed. */
function writeSecret(file: string, content: string): void {
  writeFileSync(file, content, { mode: 0o600 });
}

/** A random password per file, made once and kept on its volume. */
function ensurePassword(file: string): string {
  if (!existsSync(file)) writeSecret(file, `${randomBytes(24).toString('base64url')}\n`);
  return readFileSync(file, 'utf8').trim();
}

/**
 * A CA and a certificate for each server, signed by it; made once. The CA's key is thrown away
 * once both are signed: a new certificate is a new CA (docs/OPERATIONS.md says how). Node's crypto
 * cannot make X.509 certificates, so openssl (in the image) does.
 */
function ensureCertificates({ root, natsHost, redisHost }: BusSecretsLayout): void {
  const servers = { nats: natsHost, redis: redisHost };
  if (existsSync(join(root, 'ca/ca.pem')) && Object.keys(servers).every((server) => existsSync(join(root, server, 'server.pem')))) return;
  const work = mkdtempSync(join(tmpdir(), 'bus-secrets-'));
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: work, stdio: ['ignore', 'ignore', 'pipe'] });
  try {
    openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '3650', '-subj', '/CN=petstore compose CA');
    for (const [server, host] of Object.entries(servers)) {
      openssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${server}.key`, '-out', `${server}.csr`, '-subj', `/CN=${host}`);
      writeFileSync(join(work, `${server}.ext`), `subjectAltName=DNS:${host}\n`);
      openssl('x509', '-req', '-in', `${server}.csr`, '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', `${server}.pem`, '-days', '3650', '-extfile', `${server}.ext`);
      writeSecret(join(root, server, 'server.key'), readFileSync(join(work, `${server}.key`), 'utf8'));
      writeSecret(join(root, server, 'server.pem'), readFileSync(join(work, `${server}.pem`), 'utf8'));
    }
    writeFileSync(join(root, 'ca/ca.pem'), readFileSync(join(work, 'ca.pem'), 'utf8'), { mode: 0o644 });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * Makes what the stack's NATS and Redis need, on first run, and writes their configuration again
 * on every run (so a new RPC reaches the NATS server's permissions at its next start):
 * - a NATS password per process, the nats-server configuration generated from libs/contracts;
 * - the gateways' Redis password, and an ACL file with its SHA-256 only and no default user.
 */
export function provisionBusSecrets(layout: BusSecretsLayout): void {
  const { root } = layout;
  ensureCertificates(layout);
  const users = NATS_IDENTITIES.map((identity) => ({ identity, user: identity, password: ensurePassword(join(root, identity, 'nats-password')) }));
  const nats = natsServerConfig({
    listen: `0.0.0.0:${layout.natsPort}`,
    subjectPrefix: '',
    users,
    tls: { certFile: join(root, 'nats/server.pem'), keyFile: join(root, 'nats/server.key') },
  });
  writeSecret(join(root, 'nats/nats.conf'), nats);
  const redisPassword = ensurePassword(join(root, 'gateway/redis-password'));
  const acl = ['user default off', `user ${RATE_LIMIT_REDIS_USER} on #${createHash('sha256').update(redisPassword).digest('hex')} ${RATE_LIMIT_REDIS_ACL}`, ''];
  writeSecret(join(root, 'redis/users.acl'), acl.join('\n'));
}
