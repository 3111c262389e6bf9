import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CONSUMING_SERVICES, KAFKA_ADMIN_PRINCIPAL, NATS_IDENTITIES, kafkaPrincipals, natsServerConfig } from '@petstore/contracts';

/**
 * Where `node main.js bus-secrets` writes, each folder a volume of its own in docker-compose.yml so
 * that every container mounts only what it needs: `<identity>/` the process's passwords, `nats/`
 * and `redis/` the servers' configuration and keys, `kafka/` the brokers' key, CA and SCRAM
 * passwords, `kafka-<principal>/` the password of a Kafka principal that is no service, `ca/` the
 * CA certificates everybody trusts.
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
  /** The Kafka nodes' host names, all in the one node certificate they share. */
  kafkaHosts: readonly string[];
}

/** The compose stack's Kafka nodes (one, or three with the kafka-cluster profile), and localhost for their own health checks. */
export const COMPOSE_KAFKA_HOSTS = ['kafka', 'kafka-2', 'kafka-3', 'localhost'] as const;

/** The Kafka nodes' identity (their certificate's subject): a super user of the brokers, as on the local stacks. */
export const KAFKA_NODE_NAME = 'petstore-kafka-node';
/** A Kafka principal's password, in its folder (kafkaCredentialsFolder). */
export const KAFKA_PASSWORD_FILE = 'kafka-password';
/** The CA the Kafka clients check the brokers with, beside NATS's and Redis's in `ca/`. */
export const KAFKA_CA_FILE = 'kafka-ca.pem';

/** Every principal that connects to Kafka: the administrator and the access table's. */
export function kafkaCredentialPrincipals(): string[] {
  return [KAFKA_ADMIN_PRINCIPAL, ...kafkaPrincipals()];
}

/** A service keeps its Kafka password in its own folder (beside its database and NATS ones); any other principal in `kafka-<principal>/`. */
export function kafkaCredentialsFolder(principal: string): string {
  return (CONSUMING_SERVICES as readonly string[]).includes(principal) ? principal : `kafka-${principal}`;
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
 * The Kafka CA and the node certificate, made once: for every node's host name, for serving and
 * for the nodes' mutual TLS with each other (INTERNAL and CONTROLLER listeners), so one key in
 * `kafka/node.pem` (key and certificate, Kafka's PEM key store). The CA's key is thrown away as
 * the bus CA's is. A CA of its own: the bus CA's key is gone once its certificates are signed.
 */
function ensureKafkaCertificates({ root, kafkaHosts }: BusSecretsLayout): void {
  if ([join(root, 'ca', KAFKA_CA_FILE), join(root, 'kafka/ca.pem'), join(root, 'kafka/node.pem')].every((file) => existsSync(file))) return;
  const work = mkdtempSync(join(tmpdir(), 'bus-secrets-kafka-'));
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: work, stdio: ['ignore', 'ignore', 'pipe'] });
  try {
    openssl('genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', 'ca.key');
    openssl('req', '-x509', '-new', '-key', 'ca.key', '-subj', '/CN=petstore compose Kafka CA', '-days', '3650', '-out', 'ca.pem',
      '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign');
    openssl('genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', 'node.key');
    openssl('req', '-new', '-key', 'node.key', '-subj', `/CN=${KAFKA_NODE_NAME}`, '-out', 'node.csr');
    const names = kafkaHosts.map((host) => `DNS:${host}`).join(',');
    writeFileSync(join(work, 'node.ext'), [`subjectAltName=${names}`, 'extendedKeyUsage=serverAuth,clientAuth', 'basicConstraints=CA:FALSE', ''].join('\n'));
    openssl('x509', '-req', '-in', 'node.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'node.crt', '-days', '3650', '-extfile', 'node.ext');
    writeSecret(join(root, 'kafka/node.pem'), readFileSync(join(work, 'node.key'), 'utf8') + readFileSync(join(work, 'node.crt'), 'utf8'));
    const ca = readFileSync(join(work, 'ca.pem'), 'utf8');
    writeFileSync(join(root, 'kafka/ca.pem'), ca, { mode: 0o644 });
    writeFileSync(join(root, 'ca', KAFKA_CA_FILE), ca, { mode: 0o644 });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * A random SCRAM password per Kafka principal, made once in the principal's own folder, and on
 * every run the brokers' copies of all of them (`kafka/scram/<principal>.password`): the brokers
 * format their storage with these credentials and set a changed one (docker/kafka/start.sh).
 */
function provisionKafkaSecrets(layout: BusSecretsLayout): void {
  const { root } = layout;
  ensureKafkaCertificates(layout);
  mkdirSync(join(root, 'kafka/scram'), { recursive: true, mode: 0o700 });
  for (const principal of kafkaCredentialPrincipals()) {
    const password = ensurePassword(join(root, kafkaCredentialsFolder(principal), KAFKA_PASSWORD_FILE));
    writeSecret(join(root, 'kafka/scram', `${principal}.password`), `${password}\n`);
  }
}

/**
 * Makes what the stack's NATS and Redis need, on first run, and writes their configuration again
 * on every run (so a new RPC reaches the NATS server's permissions at its next start):
 * - a NATS password per process, the nats-server configuration generated from libs/contracts;
 * - the gateways' Redis password, and an ACL file with its SHA-256 only and no default user;
 * - Kafka's CA and node certificate, and a SCRAM password per principal (provisionKafkaSecrets).
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
  provisionKafkaSecrets(layout);
}
