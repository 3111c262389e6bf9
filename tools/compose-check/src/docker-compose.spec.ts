/**
 * The development machines have no Docker engine, so the compose stack is checked
 * here by reading it: docker-compose.yml, the Dockerfile, .dockerignore, .env.example
 * and the PostgreSQL init script must agree with each other and with the services'
 * configuration (ports, databases, Kafka listeners and credentials).
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KAFKA_ADMIN_PRINCIPAL, kafkaPrincipals, NATS_IDENTITIES, NATS_SERVER_ENVIRONMENT, natsServerConfig } from '@petstore/contracts';
import {
  COMPOSE_KAFKA_HOSTS,
  KAFKA_CA_FILE,
  KAFKA_NODE_NAME,
  KAFKA_PASSWORD_FILE,
  kafkaCredentialPrincipals,
  kafkaCredentialsFolder,
  provisionBusSecrets,
  RATE_LIMIT_REDIS_ACL,
  RATE_LIMIT_REDIS_USER,
} from '@petstore/service-kit';
import { RATE_LIMIT_ACL, RATE_LIMIT_USER } from '@petstore/stack';
import { parseDocument } from 'yaml';
import { envOf, parseDockerfile, stages, type Stage } from './dockerfile';
import { interpolate, interpolateDeep, MissingVariableError, references, type Env } from './interpolate';

const root = join(__dirname, '..', '..', '..');
const read = (file: string): string => readFileSync(join(root, file), 'utf8');

interface Healthcheck {
  test?: string | string[];
  disable?: boolean;
  interval?: string;
  timeout?: string;
  retries?: number;
  start_period?: string;
}

interface Service {
  image?: string;
  container_name?: string;
  stop_grace_period?: string;
  build?: string | { context?: string; dockerfile?: string; args?: Record<string, string> };
  command?: string | string[];
  entrypoint?: string | string[];
  environment?: Record<string, string | number | boolean | null> | string[];
  ports?: (string | Record<string, unknown>)[];
  expose?: unknown[];
  depends_on?: string[] | Record<string, { condition?: string }>;
  healthcheck?: Healthcheck;
  restart?: string;
  user?: string;
  privileged?: boolean;
  network_mode?: string;
  volumes?: (string | { type?: string; source?: string; target?: string })[];
  tmpfs?: string | string[];
  init?: boolean;
  profiles?: string[];
}

interface ComposeFile {
  name?: string;
  services: Record<string, Service>;
  volumes?: Record<string, unknown>;
}

const composeText = read('docker-compose.yml');
const composeDocument = parseDocument(composeText, { uniqueKeys: true });
const compose = composeDocument.toJS() as ComposeFile;
const services = compose.services ?? {};

/** A complete environment, as an operator's .env would provide it. */
const SAMPLE_PASSWORD = 'a0b1c2d3e4f5';
const operatorEnv: Env = {
  POSTGRES_PASSWORD: SAMPLE_PASSWORD,
  API_KEYS: '[{"name":"ops","sha256":"0000000000000000000000000000000000000000000000000000000000000000","scopes":["*"]}]',
};
const resolved = interpolateDeep(compose, operatorEnv);
/** The kafka-cluster profile's settings (deploy/compose/kafka-cluster.env), and the file as they resolve it. */
const clusterEnv: Env = Object.fromEntries(
  read('deploy/compose/kafka-cluster.env')
    .split(/\r?\n/)
    .filter((line) => /^[A-Z_][A-Z0-9_]*=/.test(line))
    .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
);
const cluster = interpolateDeep(compose, { ...operatorEnv, ...clusterEnv });

const APP_SERVICES = ['catalog', 'orders', 'inventory', 'gateway'] as const;
const DATABASE_SERVICES = ['catalog', 'orders', 'inventory'] as const;
/** One-shot steps that run to completion before their service starts. */
const MIGRATE_STEPS = DATABASE_SERVICES.map((name) => `${name}-migrate`);
/** Creates the topics and ACLs before any service starts: the services may not. */
const KAFKA_PROVISION = 'kafka-provision';
/** Makes the NATS and Redis passwords, certificates and server configuration before either server starts. */
const BUS_SECRETS = 'bus-secrets';
const isOneShot = (name: string): boolean => MIGRATE_STEPS.includes(name) || name === BUS_SECRETS || name === KAFKA_PROVISION;
/** Where bus-secrets writes, one volume per folder (libs/service-kit/src/bus-secrets.ts). */
const SECRETS_ROOT = '/var/lib/petstore';
/** Each identity's volume: its database password (the services with a database) and its NATS password (the gateway: and its Redis one). */
const CREDENTIALS: Record<(typeof APP_SERVICES)[number], string> = {
  catalog: 'catalog-credentials',
  orders: 'orders-credentials',
  inventory: 'inventory-credentials',
  gateway: 'gateway-bus-credentials',
};
/** The CA certificates every client of NATS, Redis and Kafka checks their certificates with: public, mounted read-only where needed. */
const CA_VOLUME = 'bus-ca';
/** The Kafka nodes' key, the Kafka CA and the brokers' copy of every principal's password. */
const KAFKA_SECRETS = 'kafka-secrets';
const isService = (principal: string): boolean => (DATABASE_SERVICES as readonly string[]).includes(principal);
/** Each Kafka principal's volume: a service's own credentials volume, or `kafka-<principal>-credentials`. */
const KAFKA_CREDENTIALS: Record<string, string> = Object.fromEntries(
  kafkaCredentialPrincipals().map((principal) => [principal, isService(principal) ? `${principal}-credentials` : `kafka-${principal}-credentials`]),
);
/** The folders bus-secrets writes, each a volume's mount point in its container. */
const BUS_SECRETS_FOLDERS = [...APP_SERVICES, 'nats', 'redis', 'kafka', ...kafkaCredentialPrincipals().filter((principal) => !isService(principal)).map(kafkaCredentialsFolder), 'ca'];
/** The host names in the Kafka node certificate, as `main.js bus-secrets` gives them. */
const KAFKA_HOSTS = COMPOSE_KAFKA_HOSTS;

/** Ports per docs/ARCHITECTURE.md. */
const HTTP_PORTS: Record<string, string> = { gateway: '3000', catalog: '3001', orders: '3002', inventory: '3003' };
const RPC_PORTS: Record<string, string> = { catalog: '4001', orders: '4002', inventory: '4003' };
/** The Kafka brokers: the first always, the other two with the kafka-cluster profile. */
const BROKERS = ['kafka', 'kafka-2', 'kafka-3'];

/** Who waits for whom to be healthy before starting. */
const START_ORDER: Record<string, string[]> = {
  postgres: [],
  kafka: [BUS_SECRETS],
  'kafka-2': [BUS_SECRETS],
  'kafka-3': [BUS_SECRETS],
  [BUS_SECRETS]: [],
  nats: [BUS_SECRETS],
  redis: [BUS_SECRETS],
  'catalog-migrate': ['postgres'],
  'orders-migrate': ['postgres'],
  'inventory-migrate': ['postgres'],
  [KAFKA_PROVISION]: [BUS_SECRETS, 'kafka'],
  catalog: [BUS_SECRETS, 'catalog-migrate', 'kafka', KAFKA_PROVISION],
  orders: [BUS_SECRETS, 'kafka', KAFKA_PROVISION, 'orders-migrate'],
  inventory: [BUS_SECRETS, 'inventory-migrate', 'kafka', KAFKA_PROVISION],
  gateway: ['catalog', 'inventory', 'orders', 'redis'],
  haproxy: ['gateway'],
  prometheus: [],
  jaeger: [],
  grafana: ['jaeger', 'prometheus'],
};

/** What the images declare as VOLUME: each must be given a named volume or a tmpfs, or every `up` leaves an anonymous one. */
const IMAGE_VOLUMES: Record<string, string[]> = {
  postgres: ['/var/lib/postgresql/data'],
  kafka: ['/etc/kafka/secrets', '/var/lib/kafka/data', '/mnt/shared/config'],
  'kafka-2': ['/etc/kafka/secrets', '/var/lib/kafka/data', '/mnt/shared/config'],
  'kafka-3': ['/etc/kafka/secrets', '/var/lib/kafka/data', '/mnt/shared/config'],
  redis: ['/data'],
  prometheus: ['/prometheus'],
  jaeger: ['/tmp'],
  grafana: ['/var/lib/grafana'],
};

/** Started only with `--profile observability`. */
const OBSERVABILITY_SERVICES = ['grafana', 'jaeger', 'prometheus'];
/** Started only with `--profile kafka-cluster`: the second and third brokers. */
const CLUSTER_BROKERS = ['kafka-2', 'kafka-3'];
/** The official nats image holds the server binary alone: nothing in it can probe the server. */
const UNPROBED = ['nats'];

function environment(service: Service | undefined): Record<string, string> {
  const raw = service?.environment ?? {};
  const entries = Array.isArray(raw)
    ? raw.map((item) => {
        const at = item.indexOf('=');
        return at < 0 ? [item, ''] : [item.slice(0, at), item.slice(at + 1)];
      })
    : Object.entries(raw).map(([key, value]) => [key, value === null ? '' : String(value)]);
  return Object.fromEntries(entries);
}

function dependencies(service: Service): Record<string, string | undefined> {
  const raw = service.depends_on ?? {};
  if (Array.isArray(raw)) return Object.fromEntries(raw.map((name) => [name, undefined]));
  return Object.fromEntries(Object.entries(raw).map(([name, options]) => [name, options?.condition]));
}

function healthcheckCommand(service: Service): string {
  const test = service.healthcheck?.test;
  return Array.isArray(test) ? test.join(' ') : (test ?? '');
}

function volumeMounts(service: Service): { source?: string; target?: string; readOnly: boolean }[] {
  return (service.volumes ?? []).map((volume) => {
    if (typeof volume !== 'string') return { source: volume.source, target: volume.target, readOnly: false };
    const [source, target, mode] = volume.split(':');
    return { source, target, readOnly: mode?.split(',').includes('ro') ?? false };
  });
}

const isNamedVolume = (source?: string): boolean => !!source && !/^[./~]/.test(source);

describe('docker-compose.yml', () => {
  it('is well-formed YAML without duplicate keys', () => {
    expect(composeDocument.errors.map((error) => error.message)).toEqual([]);
    expect(composeDocument.warnings.map((warning) => warning.message)).toEqual([]);
  });

  it('defines the stack: PostgreSQL, Kafka, NATS, Redis, HAProxy, the four services and the migrate step of each one with a database', () => {
    const byDefault = Object.keys(services).filter((name) => services[name].profiles === undefined);
    expect(byDefault.sort()).toEqual([
      BUS_SECRETS,
      'catalog',
      'catalog-migrate',
      'gateway',
      'haproxy',
      'inventory',
      'inventory-migrate',
      'kafka',
      KAFKA_PROVISION,
      'nats',
      'orders',
      'orders-migrate',
      'postgres',
      'redis',
    ]);
  });

  it('adds Prometheus, Jaeger and Grafana with the observability profile only, two more brokers with the kafka-cluster profile only', () => {
    const profiled = Object.entries(services).filter(([, service]) => service.profiles !== undefined);
    expect(Object.fromEntries(profiled.map(([name, service]) => [name, service.profiles]))).toEqual({
      ...Object.fromEntries(OBSERVABILITY_SERVICES.map((name) => [name, ['observability']])),
      ...Object.fromEntries(CLUSTER_BROKERS.map((name) => [name, ['kafka-cluster']])),
    });
  });

  it('restarts every service unless it was stopped, and a migrate step only when it failed', () => {
    for (const [name, service] of Object.entries(services)) {
      expect({ name, restart: service.restart }).toEqual({ name, restart: isOneShot(name) ? 'on-failure' : 'unless-stopped' });
    }
  });

  it('gives every long-running service a healthcheck with bounded timing', () => {
    for (const name of [...MIGRATE_STEPS, KAFKA_PROVISION, BUS_SECRETS, ...UNPROBED]) expect(services[name].healthcheck).toEqual({ disable: true });
    for (const [name, service] of Object.entries(services).filter(([candidate]) => !isOneShot(candidate) && !UNPROBED.includes(candidate))) {
      const check = service.healthcheck;
      expect({ name, disabled: check?.disable ?? false }).toEqual({ name, disabled: false });
      expect(Array.isArray(check?.test)).toBe(true);
      const [kind, ...command] = check?.test as string[];
      expect({ name, kind }).toEqual({ name, kind: expect.stringMatching(/^CMD(-SHELL)?$/) });
      expect(command.join(' ').trim()).not.toBe('');
      for (const field of ['interval', 'timeout', 'start_period'] as const) {
        expect({ name, field, value: check?.[field] }).toEqual({ name, field, value: expect.stringMatching(/^\d+(ms|s|m)$/) });
      }
      expect(check?.retries).toBeGreaterThan(0);
    }
  });

  it('starts each service only after the services it needs are healthy', () => {
    const graph: Record<string, string[]> = {};
    for (const [name, service] of Object.entries(services)) {
      const needs = dependencies(service);
      for (const [dependency, condition] of Object.entries(needs)) {
        const expected = isOneShot(dependency) ? 'service_completed_successfully' : 'service_healthy';
        expect({ name, dependency, condition }).toEqual({ name, dependency, condition: expected });
        if (!isOneShot(dependency)) expect(services[dependency]?.healthcheck?.test).toBeDefined();
      }
      graph[name] = Object.keys(needs).sort();
    }
    expect(graph).toEqual(START_ORDER);
  });

  it('publishes only the load balancer, on a configurable host port mapped to the gateways\' HTTP port; the observability UIs on loopback', () => {
    const published = Object.entries(services)
      .filter(([, service]) => (service.ports ?? []).length > 0)
      .map(([name]) => name);
    expect(published.filter((name) => !OBSERVABILITY_SERVICES.includes(name))).toEqual(['haproxy']);
    for (const name of OBSERVABILITY_SERVICES) {
      for (const port of services[name].ports ?? []) expect({ name, port }).toEqual({ name, port: expect.stringMatching(/^127\.0\.0\.1:\d+:\d+$/) });
    }
    expect(services.haproxy.ports).toEqual(['${GATEWAY_PORT:-3000}:3000']);
    expect(resolved.services.haproxy.ports).toEqual(['3000:3000']);
    expect(interpolate(String(services.haproxy.ports?.[0]), { GATEWAY_PORT: '8080' })).toBe('8080:3000');
    expect(environment(services.gateway).HTTP_PORT).toBe('3000');
    for (const [name, service] of Object.entries(services)) {
      expect({ name, networkMode: service.network_mode }).toEqual({ name, networkMode: undefined });
    }
  });

  it('runs nothing as root or privileged', () => {
    for (const [name, service] of Object.entries(services)) {
      expect({ name, user: service.user ?? 'image default' }).not.toEqual({ name, user: expect.stringMatching(/^(root|0)(:|$)/) });
      expect({ name, privileged: service.privileged ?? false }).toEqual({ name, privileged: false });
    }
    // postgres drops to its own user in its entrypoint; apache/kafka runs as appuser;
    // the services' image ends with USER node (checked in the Dockerfile tests below).
    for (const name of APP_SERVICES) expect(services[name].user).toBeUndefined();
  });

  it('keeps secrets out of the file: they are required variables, or generated files', () => {
    expect(environment(services.postgres).POSTGRES_PASSWORD).toMatch(/^\$\{POSTGRES_PASSWORD:\?[^}]+\}$/);
    expect(environment(services.gateway).API_KEYS).toMatch(/^\$\{API_KEYS:\?[^}]+\}$/);
    for (const [name, service] of Object.entries(services)) {
      for (const [key, value] of Object.entries(environment(service))) {
        if (key === 'DATABASE_PASSWORD_FILE') {
          expect({ name, value }).toEqual({ name, value: '/var/lib/petstore/database-password' });
        } else if (key.endsWith('_PASSWORD_FILE')) {
          // A password bus-secrets generated, on the process's own volume.
          expect({ name, key, value }).toEqual({ name, key, value: expect.stringMatching(/^\/var\/lib\/petstore\/(nats|redis|kafka)-password$/) });
        } else if (/PASSWORD|SECRET|TOKEN|API_KEY|CREDENTIAL/i.test(key)) {
          expect({ name, key, value }).toEqual({ name, key, value: expect.stringMatching(/^\$\{[A-Z_]+:\?[^}]+\}$/) });
        }
        if (key === 'MIGRATION_DATABASE_URL') {
          expect({ name, password: new URL(value.replace(/\$\{[^}]*\}/g, 'X')).password }).toEqual({ name, password: 'X' });
          expect(references(value).map((reference) => `${reference.name}${reference.operator}`)).toEqual(['POSTGRES_PASSWORD:?']);
        }
        if (key === 'DATABASE_URL') {
          // The serving role's password never appears in the environment: it is read from DATABASE_PASSWORD_FILE.
          expect({ name, password: new URL(value).password, variables: references(value) }).toEqual({ name, password: '', variables: [] });
        }
      }
    }
    // Only PostgreSQL itself and the migrate steps know the owner's password; no serving process does.
    const knowOwnerPassword = Object.entries(services)
      .filter(([, service]) => references(JSON.stringify(service.environment ?? {})).some((reference) => reference.name === 'POSTGRES_PASSWORD'))
      .map(([name]) => name)
      .sort();
    expect(knowOwnerPassword).toEqual(['catalog-migrate', 'inventory-migrate', 'orders-migrate', 'postgres']);
    // Nothing that looks like a key hash or a long random token is written anywhere.
    expect(composeText).not.toMatch(/\b[0-9a-f]{32,}\b/i);
  });

  it('refuses to start without POSTGRES_PASSWORD or API_KEYS', () => {
    const missing = (env: Env): string | undefined => {
      try {
        interpolateDeep(compose, env);
        return undefined;
      } catch (error) {
        if (error instanceof MissingVariableError) return error.variable;
        throw error;
      }
    };
    expect(missing(operatorEnv)).toBeUndefined();
    expect(missing({ ...operatorEnv, POSTGRES_PASSWORD: undefined })).toBe('POSTGRES_PASSWORD');
    expect(missing({ ...operatorEnv, POSTGRES_PASSWORD: '' })).toBe('POSTGRES_PASSWORD');
    expect(missing({ ...operatorEnv, API_KEYS: undefined })).toBe('API_KEYS');
    expect(missing({ ...operatorEnv, API_KEYS: '' })).toBe('API_KEYS');
  });

  it('leaves no anonymous volume behind: every volume an image declares gets a named volume or a tmpfs', () => {
    for (const [name, paths] of Object.entries(IMAGE_VOLUMES)) {
      const service = services[name];
      const tmpfs = typeof service.tmpfs === 'string' ? [service.tmpfs] : (service.tmpfs ?? []);
      const named = volumeMounts(service)
        .filter((mount) => isNamedVolume(mount.source))
        .map((mount) => mount.target);
      for (const path of paths) expect({ name, path, covered: tmpfs.includes(path) || named.includes(path) }).toEqual({ name, path, covered: true });
    }
  });

  it('declares every named volume it mounts, and mounts every one it declares', () => {
    const used = new Set(
      Object.values(services)
        .flatMap(volumeMounts)
        .map((mount) => mount.source)
        .filter(isNamedVolume),
    );
    expect([...used].sort()).toEqual(Object.keys(compose.volumes ?? {}).sort());
  });

  describe('postgres', () => {
    const service = services.postgres;
    const env = environment(service);

    it('uses the official image with a persistent named volume for its data', () => {
      expect(service.image).toMatch(/^postgres:\d+(\.\d+)?(-bookworm)?$/);
      const data = volumeMounts(service).find((mount) => mount.target === '/var/lib/postgresql/data');
      expect(isNamedVolume(data?.source)).toBe(true);
      expect(env.POSTGRES_USER).toBe('postgres');
    });

    it('is healthy only once it accepts TCP connections (not during first-time initialisation)', () => {
      expect(service.healthcheck?.test).toEqual(expect.arrayContaining(['pg_isready', '-h', '127.0.0.1']));
    });

    it('creates exactly the databases the services are configured with, in a valid script', () => {
      const mount = volumeMounts(service).find((candidate) => candidate.target?.startsWith('/docker-entrypoint-initdb.d/'));
      expect(mount).toBeDefined();
      expect(mount?.readOnly).toBe(true);
      expect(mount?.target).toMatch(/\.sh$/);
      const script = join(root, mount?.source ?? '');
      expect(existsSync(script)).toBe(true);
      // The image executes an executable script and sources one that is not.
      expect(statSync(script).mode & 0o111).not.toBe(0);
      execFileSync('bash', ['-n', script]);

      const created = new Set(readFileSync(script, 'utf8').match(/\bpetstore_[a-z_]+\b/g));
      const configured = new Set(
        Object.values(resolved.services)
          .map((candidate) => environment(candidate).DATABASE_URL)
          .filter((url): url is string => !!url)
          .map((url) => decodeURIComponent(new URL(url).pathname.slice(1))),
      );
      expect([...created].sort()).toEqual([...configured].sort());
    });
  });

  describe('kafka', () => {
    const service = services.kafka;
    // As an operator's .env without the kafka-cluster settings resolves it.
    const env = environment(resolved.services.kafka);

    it('uses the official apache/kafka image pinned to a 3.9 patch release', () => {
      expect(service.image).toMatch(/^apache\/kafka:3\.9\.\d+$/);
    });

    it('runs KRaft on a single node that is both broker and controller', () => {
      expect(new Set(env.KAFKA_PROCESS_ROLES.split(','))).toEqual(new Set(['broker', 'controller']));
      expect(env.KAFKA_ZOOKEEPER_CONNECT).toBeUndefined();
      const voters = env.KAFKA_CONTROLLER_QUORUM_VOTERS.split(',');
      expect(voters).toHaveLength(1);
      const [, voterId, , voterPort] = /^(\d+)@([^:]+):(\d+)$/.exec(voters[0]) ?? [];
      expect(voterId).toBe(env.KAFKA_NODE_ID);

      const listeners = Object.fromEntries(
        env.KAFKA_LISTENERS.split(',').map((listener) => {
          const [, listenerName, port] = /^([A-Z_]+):\/\/[^:]*:(\d+)$/.exec(listener) ?? [];
          return [listenerName, port];
        }),
      );
      expect(listeners[env.KAFKA_CONTROLLER_LISTENER_NAMES]).toBe(voterPort);
      const protocols = Object.fromEntries(env.KAFKA_LISTENER_SECURITY_PROTOCOL_MAP.split(',').map((pair) => pair.split(':')));
      for (const listenerName of Object.keys(listeners)) expect(protocols[listenerName]).toBeDefined();
      expect(listeners[env.KAFKA_INTER_BROKER_LISTENER_NAME]).toBeDefined();
      // The image formats the log directory with this id on first start.
      expect(Buffer.from(env.CLUSTER_ID, 'base64url')).toHaveLength(16);
    });

    it('advertises the one client address every service is configured with, and its nodes\' own listener; publishes nothing', () => {
      const advertised = env.KAFKA_ADVERTISED_LISTENERS.split(',');
      expect(advertised).toEqual(['SASL_SSL://kafka:9092', 'INTERNAL://kafka:9094']);
      expect(env.KAFKA_LISTENERS.split(',')).toContain('SASL_SSL://:9092');
      for (const name of DATABASE_SERVICES) expect(environment(resolved.services[name]).KAFKA_BROKERS).toBe('kafka:9092');
      expect(service.ports).toBeUndefined();
    });

    it('fits one broker: replication factors of 1, no auto-created topics, a capped heap', () => {
      for (const key of [
        'KAFKA_DEFAULT_REPLICATION_FACTOR',
        'KAFKA_MIN_INSYNC_REPLICAS',
        'KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR',
        'KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR',
        'KAFKA_TRANSACTION_STATE_LOG_MIN_ISR',
      ]) {
        expect({ key, value: env[key] }).toEqual({ key, value: '1' });
      }
      expect(env.KAFKA_AUTO_CREATE_TOPICS_ENABLE).toBe('false');
      expect(environment(resolved.services.kafka).KAFKA_HEAP_OPTS).toMatch(/-Xmx\d+[mg]\b/);
    });

    it('keeps its log directory on a named volume', () => {
      const data = volumeMounts(service).find((mount) => mount.target === env.KAFKA_LOG_DIRS);
      expect(isNamedVolume(data?.source)).toBe(true);
    });

    it('logs to stdout only: no log4j file appender, no GC log file', () => {
      const [, configFile] = /-Dlog4j\.configuration=file:(\S+)/.exec(env.KAFKA_LOG4J_OPTS) ?? [];
      const mount = volumeMounts(service).find((candidate) => candidate.target === configFile);
      expect(mount?.readOnly).toBe(true);
      const properties = read(mount?.source ?? '');
      expect(properties).toMatch(/^log4j\.rootLogger=INFO, stdout$/m);
      expect(properties).toMatch(/^log4j\.appender\.stdout=org\.apache\.log4j\.ConsoleAppender$/m);
      const appenders = [...properties.matchAll(/^log4j\.appender\.([^.=]+)=/gm)].map((match) => match[1]);
      expect(appenders).toEqual(['stdout']);
      // kafka-server-start.sh passes -loggc (GC log files in the container) unless EXTRA_ARGS says otherwise.
      expect(env.EXTRA_ARGS).toBe('-name kafkaServer');
    });

    it('is healthy once the broker answers a request from the image’s own client, as the node on its own listener', () => {
      expect(healthcheckCommand(service)).toMatch(
        /\/opt\/kafka\/bin\/kafka-broker-api-versions\.sh --bootstrap-server localhost:9094\s+--command-config \/tmp\/petstore-kafka\/node-client\.properties\b/,
      );
      // The file start.sh writes there.
      expect(read('docker/kafka/start.sh')).toContain('readonly WORK=/tmp/petstore-kafka');
      expect(read('docker/kafka/start.sh')).toContain('readonly NODE_CLIENT=$WORK/node-client.properties');
      expect(read('docker/kafka/start.sh')).toContain('readonly INTERNAL=localhost:9094');
    });
  });

  describe.each([...APP_SERVICES, ...MIGRATE_STEPS])('%s image', (name) => {
    it('is built from the one Dockerfile with APP set to its service', () => {
      expect(services[name].build).toEqual({ context: '.', dockerfile: 'Dockerfile', args: { APP: name.replace(/-migrate$/, '') } });
      expect(services[name].image).toBeUndefined();
      expect(services[name].init).toBe(true);
    });
  });

  describe.each(APP_SERVICES)('%s', (name) => {
    const service = services[name];
    const env = environment(service);

    it('runs in production mode on its documented HTTP port and reports readiness there', () => {
      expect(env.NODE_ENV).toBe('production');
      // HOST is the interface both its servers bind: all of the container's, so other containers reach it.
      expect(env.HOST).toBe('0.0.0.0');
      expect(env.HTTP_PORT).toBe(HTTP_PORTS[name]);
      expect(service.healthcheck?.test).toEqual([
        'CMD',
        'node',
        '-e',
        `fetch('http://127.0.0.1:${HTTP_PORTS[name]}/health/ready').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))`,
      ]);
    });

    it('reaches other services through NATS only: no address of the TCP transport', () => {
      expect(Object.keys(env).filter((key) => key.endsWith('_RPC'))).toEqual([]);
    });
  });

  describe.each(DATABASE_SERVICES)('%s (owns a database)', (name) => {
    const service = services[name];
    const env = environment(service);

    it('listens for RPC on its documented port', () => {
      expect(env.RPC_PORT).toBe(RPC_PORTS[name]);
      expect(env.KAFKA_NAMESPACE).toBe('');
    });

    it('serves as its own role, with the password its migrate step generated, from a volume only the two share', () => {
      const url = new URL(environment(resolved.services[name]).DATABASE_URL);
      expect({ protocol: url.protocol, host: url.host, username: url.username, password: url.password, pathname: url.pathname }).toEqual({
        protocol: 'postgres:',
        host: 'postgres:5432',
        username: `petstore_${name}`,
        password: '',
        pathname: `/petstore_${name}`,
      });
      const migrateEnv = environment(resolved.services[`${name}-migrate`]);
      expect(migrateEnv.DATABASE_URL).toBe(url.toString());
      expect(env.DATABASE_PASSWORD_FILE).toBe(migrateEnv.DATABASE_PASSWORD_FILE);
      const credentials = `${name}-credentials`;
      expect(volumeMounts(service)).toContainEqual({ source: credentials, target: '/var/lib/petstore', readOnly: true });
      expect(volumeMounts(services[`${name}-migrate`])).toEqual([{ source: credentials, target: '/var/lib/petstore', readOnly: false }]);
      const mountedBy = Object.entries(services).filter(([, candidate]) => volumeMounts(candidate).some((mount) => mount.source === credentials));
      expect(mountedBy.map(([candidate]) => candidate).sort()).toEqual([BUS_SECRETS, name, `${name}-migrate`].sort());
    });

    it('starts once its migrate step has applied the migrations as the owner', () => {
      expect(service.command).toBeUndefined();
      expect(service.entrypoint).toBeUndefined();
      const migrate = services[`${name}-migrate`];
      expect(migrate.command).toEqual(['node', 'main.js', 'migrate']);
      const owner = new URL(environment(resolved.services[`${name}-migrate`]).MIGRATION_DATABASE_URL);
      expect({ username: owner.username, password: owner.password, host: owner.host, pathname: owner.pathname }).toEqual({
        username: 'postgres',
        password: SAMPLE_PASSWORD,
        host: 'postgres:5432',
        pathname: `/petstore_${name}`,
      });
    });
  });

  describe('gateway', () => {
    const env = environment(services.gateway);

    it('holds no database and no Kafka client', () => {
      expect(env.DATABASE_URL).toBeUndefined();
      expect(Object.keys(env).filter((key) => key.startsWith('KAFKA_'))).toEqual([]);
      // No migrate step: the image's default command starts it.
      expect(services.gateway.command).toBeUndefined();
    });

    it('takes its rate limit from the environment with the documented default', () => {
      expect(env.RATE_LIMIT_PER_SECOND).toBe('${RATE_LIMIT_PER_SECOND:-1000}');
    });
  });
});

describe('docker-compose.yml: NATS and Redis credentials (bus-secrets)', () => {
  const step = services[BUS_SECRETS];
  /** Which containers may mount each volume that holds a secret: the steps that write it, and the one process that reads it. */
  const SECRET_READERS: Record<string, string[]> = {
    ...Object.fromEntries(APP_SERVICES.map((name) => [CREDENTIALS[name], [BUS_SECRETS, name, ...(MIGRATE_STEPS.includes(`${name}-migrate`) ? [`${name}-migrate`] : [])]])),
    'nats-secrets': [BUS_SECRETS, 'nats'],
    'redis-secrets': [BUS_SECRETS, 'redis'],
    // Every broker: each formats its storage with every principal's credential.
    [KAFKA_SECRETS]: [BUS_SECRETS, ...BROKERS],
    [KAFKA_CREDENTIALS[KAFKA_ADMIN_PRINCIPAL]]: [BUS_SECRETS, KAFKA_PROVISION],
    // The tools' passwords, for an operator to mount where a tool runs (docs/OPERATIONS.md).
    ...Object.fromEntries(kafkaPrincipals().filter((principal) => !isService(principal)).map((principal) => [KAFKA_CREDENTIALS[principal], [BUS_SECRETS]])),
  };
  const mountOf = (name: string, volume: string) => volumeMounts(services[name]).find((mount) => mount.source === volume);

  /** What bus-secrets writes, made here by the same code in a folder of its own (twice: the second run must keep everything). */
  const generated = mkdtempSync(join(tmpdir(), 'bus-secrets-'));
  for (const folder of BUS_SECRETS_FOLDERS) mkdirSync(join(generated, folder));
  const layout = { root: generated, natsHost: 'nats', natsPort: 4222, redisHost: 'redis', kafkaHosts: KAFKA_HOSTS };
  provisionBusSecrets(layout);
  const file = (path: string): string => readFileSync(join(generated, path), 'utf8');
  const firstRun = Object.fromEntries(APP_SERVICES.map((name) => [name, file(`${name}/nats-password`)]));
  provisionBusSecrets(layout);
  /** A path inside a container that mounts bus-secrets' folders at SECRETS_ROOT, as it is in the generated folder here. */
  const local = (path: string): string => join(generated, path.slice(SECRETS_ROOT.length + 1));
  afterAll(() => rmSync(generated, { recursive: true, force: true }));

  it('runs once on the services\' image and writes each folder to a volume of its own', () => {
    expect(step.build).toEqual({ context: '.', dockerfile: 'Dockerfile', args: { APP: 'catalog' } });
    expect(step.command).toEqual(['node', 'main.js', 'bus-secrets']);
    expect(step.init).toBe(true);
    expect(volumeMounts(step)).toEqual([
      ...APP_SERVICES.map((name) => ({ source: CREDENTIALS[name], target: `${SECRETS_ROOT}/${name}`, readOnly: false })),
      { source: 'nats-secrets', target: `${SECRETS_ROOT}/nats`, readOnly: false },
      { source: 'redis-secrets', target: `${SECRETS_ROOT}/redis`, readOnly: false },
      { source: KAFKA_SECRETS, target: `${SECRETS_ROOT}/kafka`, readOnly: false },
      ...kafkaCredentialPrincipals()
        .filter((principal) => !isService(principal))
        .map((principal) => ({ source: KAFKA_CREDENTIALS[principal], target: `${SECRETS_ROOT}/${kafkaCredentialsFolder(principal)}`, readOnly: false })),
      { source: CA_VOLUME, target: `${SECRETS_ROOT}/ca`, readOnly: false },
    ]);
  });

  it('lets each volume that holds a secret be mounted only by the steps that write it and the one process that reads it, read-only', () => {
    for (const [volume, readers] of Object.entries(SECRET_READERS)) {
      const mountedBy = Object.keys(services).filter((name) => mountOf(name, volume));
      expect({ volume, mountedBy: mountedBy.sort() }).toEqual({ volume, mountedBy: [...readers].sort() });
      for (const name of readers.filter((reader) => !isOneShot(reader))) expect({ volume, name, readOnly: mountOf(name, volume)?.readOnly }).toEqual({ volume, name, readOnly: true });
    }
  });

  describe.each(APP_SERVICES)('%s', (name) => {
    const env = environment(services[name]);

    it('connects to NATS as its own user, with the password bus-secrets made for it, checking the server against the CA', () => {
      expect(volumeMounts(services[name])).toEqual([
        { source: CREDENTIALS[name], target: '/var/lib/petstore', readOnly: true },
        { source: CA_VOLUME, target: '/etc/petstore/ca', readOnly: true },
      ]);
      expect({ user: env.NATS_USER, password: env.NATS_PASSWORD_FILE, ca: env.NATS_TLS_CA_FILE }).toEqual({
        user: name,
        password: '/var/lib/petstore/nats-password',
        ca: '/etc/petstore/ca/ca.pem',
      });
      // The file it reads is the one bus-secrets wrote into its volume, and the NATS server knows that password for its user.
      expect(mountOf(BUS_SECRETS, CREDENTIALS[name])?.target).toBe(`${SECRETS_ROOT}/${name}`);
      const users = JSON.parse(file('nats/nats.conf').replace(/^#.*$/gm, '')).authorization.users as { user: string; password: string }[];
      expect(users.find((user) => user.user === env.NATS_USER)?.password).toBe(file(`${name}/nats-password`).trim());
      expect(file(`${name}/nats-password`)).toBe(firstRun[name]);
    });
  });

  it('runs NATS with the configuration generated from libs/contracts: TLS, and the users and permissions of the RPC table', () => {
    expect(services.nats.command).toEqual(['--config', `${SECRETS_ROOT}/nats/nats.conf`]);
    expect(mountOf('nats', 'nats-secrets')).toEqual({ source: 'nats-secrets', target: `${SECRETS_ROOT}/nats`, readOnly: true });
    const config = JSON.parse(file('nats/nats.conf').replace(/^#.*$/gm, ''));
    const passwords = Object.fromEntries(NATS_IDENTITIES.map((identity) => [identity, file(`${identity}/nats-password`).trim()]));
    const expected = JSON.parse(
      natsServerConfig({
        listen: '0.0.0.0:4222',
        subjectPrefix: '',
        users: NATS_IDENTITIES.map((identity) => ({ identity, user: identity, password: passwords[identity] })),
        tls: { certFile: `${generated}/nats/server.pem`, keyFile: `${generated}/nats/server.key` },
      }).replace(/^#.*$/gm, ''),
    );
    expect(config).toEqual(expected);
    expect(new Set(Object.values(passwords)).size).toBe(NATS_IDENTITIES.length);
    // Its certificate is signed by the CA the clients mount, for the name they connect to.
    execFileSync('openssl', ['verify', '-CAfile', join(generated, 'ca/ca.pem'), config.tls.cert_file], { stdio: 'pipe' });
    expect(execFileSync('openssl', ['x509', '-in', config.tls.cert_file, '-noout', '-ext', 'subjectAltName'], { encoding: 'utf8' })).toContain('DNS:nats');
    expect(new URL(environment(services.gateway).NATS_SERVERS).hostname).toBe('nats');
    for (const secret of ['nats/nats.conf', 'nats/server.key', 'gateway/nats-password']) expect({ secret, mode: statSync(join(generated, secret)).mode & 0o777 }).toEqual({ secret, mode: 0o600 });
  });

  it('runs NATS with the environment of the stacks\' own NATS servers (one P for Go\'s scheduler)', () => {
    expect(environment(services.nats)).toEqual(NATS_SERVER_ENVIRONMENT);
  });

  it('runs Redis over TLS only, with the generated ACL file: no default user, the gateways\' user with a hash of its password', () => {
    const command = services.redis.command as string[];
    const option = (name: string): string | undefined => command[command.indexOf(name) + 1];
    expect(command[0]).toBe('redis-server');
    expect({ port: option('--port'), tls: option('--tls-port') }).toEqual({ port: '0', tls: '6379' });
    for (const name of ['--tls-cert-file', '--tls-key-file', '--tls-ca-cert-file', '--aclfile']) expect({ name, exists: existsSync(local(option(name) ?? '')) }).toEqual({ name, exists: true });
    expect(mountOf('redis', 'redis-secrets')).toEqual({ source: 'redis-secrets', target: `${SECRETS_ROOT}/redis`, readOnly: true });
    const acl = readFileSync(local(option('--aclfile') ?? ''), 'utf8').trim().split('\n');
    const password = file('gateway/redis-password').trim();
    expect(acl).toEqual(['user default off', `user ${RATE_LIMIT_REDIS_USER} on #${createHash('sha256').update(password).digest('hex')} ${RATE_LIMIT_REDIS_ACL}`]);
    expect(acl.join('\n')).not.toContain(password);
    // The stacks' own Redis (tools/stack/src/redis.ts) grants the same.
    expect({ user: RATE_LIMIT_USER, acl: RATE_LIMIT_ACL }).toEqual({ user: RATE_LIMIT_REDIS_USER, acl: RATE_LIMIT_REDIS_ACL });
    expect(healthcheckCommand(services.redis)).toContain('NOAUTH');

    const gateway = environment(services.gateway);
    const url = new URL(gateway.RATE_LIMIT_REDIS_URL);
    expect({ protocol: url.protocol, user: url.username, password: url.password, host: url.host }).toEqual({ protocol: 'rediss:', user: RATE_LIMIT_REDIS_USER, password: '', host: 'redis:6379' });
    expect({ password: gateway.RATE_LIMIT_REDIS_PASSWORD_FILE, ca: gateway.RATE_LIMIT_REDIS_TLS_CA_FILE }).toEqual({ password: '/var/lib/petstore/redis-password', ca: '/etc/petstore/ca/ca.pem' });
    execFileSync('openssl', ['verify', '-CAfile', join(generated, 'ca/ca.pem'), local(option('--tls-cert-file') ?? '')], { stdio: 'pipe' });
  });

  it('runs both servers as the user that owns the files bus-secrets wrote, which are readable by it alone', () => {
    // The services' image's `node` (1000:1000) runs bus-secrets.
    for (const name of ['nats', 'redis']) expect({ name, user: services[name].user }).toEqual({ name, user: '1000:1000' });
  });

  describe('Kafka', () => {
    const firstKafkaRun = Object.fromEntries(kafkaCredentialPrincipals().map((principal) => [principal, file(`${kafkaCredentialsFolder(principal)}/${KAFKA_PASSWORD_FILE}`)]));
    /** Every broker as one broker and as three resolve it. */
    const brokerEnvs = [
      ['kafka', environment(resolved.services.kafka)],
      ...BROKERS.map((name) => [`${name} (kafka-cluster)`, environment(cluster.services[name])]),
    ] as [string, Record<string, string>][];
    /** The server property a KAFKA_* variable sets, by the rule docker/kafka/start.sh applies (the image's documented one). */
    const property = (variable: string): string =>
      variable.slice('KAFKA_'.length).toLowerCase().replaceAll('___', '-').replaceAll('__', '@').replaceAll('_', '.').replaceAll('@', '_');
    const properties = (env: Record<string, string>): Record<string, string> =>
      Object.fromEntries(Object.entries(env).filter(([key]) => key.startsWith('KAFKA_') && !key.endsWith('_OPTS')).map(([key, value]) => [property(key), value]));
    /** The containers that are Kafka clients: whatever is given brokers to connect to. */
    const clients = Object.keys(services).filter((name) => environment(services[name]).KAFKA_BROKERS !== undefined);

    it.each(brokerEnvs)('%s has no PLAINTEXT listener: SASL_SSL with SCRAM-SHA-512 for clients, mutual TLS between the nodes', (_, env) => {
      const props = properties(env);
      const protocols: Record<string, string> = Object.fromEntries(props['listener.security.protocol.map'].split(',').map((pair) => pair.split(':')));
      const listeners = props.listeners.split(',').map((listener) => /^([A-Z_]+):\/\//.exec(listener)?.[1] ?? listener);
      expect(Object.fromEntries(listeners.map((listener) => [listener, protocols[listener]]))).toEqual({ SASL_SSL: 'SASL_SSL', CONTROLLER: 'SSL', INTERNAL: 'SSL' });
      expect(Object.values(protocols).filter((protocol) => !['SASL_SSL', 'SSL'].includes(protocol))).toEqual([]);
      expect(JSON.stringify(env)).not.toMatch(/PLAINTEXT/);
      expect(props['advertised.listeners']).toMatch(/^SASL_SSL:\/\/[a-z0-9-]+:9092,INTERNAL:\/\/[a-z0-9-]+:9094$/);
      expect({ interBroker: props['inter.broker.listener.name'], controller: props['controller.listener.names'] }).toEqual({ interBroker: 'INTERNAL', controller: 'CONTROLLER' });
      expect(props['sasl.enabled.mechanisms']).toBe('SCRAM-SHA-512');
      expect(props['listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config']).toBe('org.apache.kafka.common.security.scram.ScramLoginModule required;');
      // A node proves itself with its certificate on the nodes' own listeners.
      expect({ internal: props['listener.name.internal.ssl.client.auth'], controller: props['listener.name.controller.ssl.client.auth'] }).toEqual({ internal: 'required', controller: 'required' });
      expect({
        keystore: [props['ssl.keystore.type'], props['ssl.keystore.location']],
        truststore: [props['ssl.truststore.type'], props['ssl.truststore.location']],
      }).toEqual({ keystore: ['PEM', '/etc/kafka/secrets/node.pem'], truststore: ['PEM', '/etc/kafka/secrets/ca.pem'] });
    });

    it.each(brokerEnvs)('%s allows nothing that no ACL allows; its super users are the nodes and the administrator', (_, env) => {
      const props = properties(env);
      expect(props['authorizer.class.name']).toBe('org.apache.kafka.metadata.authorizer.StandardAuthorizer');
      expect(props['allow.everyone.if.no.acl.found']).toBe('false');
      expect(props['super.users'].split(';').sort()).toEqual([`User:${KAFKA_ADMIN_PRINCIPAL}`, `User:CN=${KAFKA_NODE_NAME}`].sort());
    });

    it.each(BROKERS)('%s starts through docker/kafka/start.sh, with the secrets bus-secrets made, read-only', (name) => {
      const service = services[name];
      expect(service.command).toEqual(['bash', '/etc/kafka/petstore/start.sh']);
      expect(volumeMounts(service)).toContainEqual({ source: './docker/kafka/start.sh', target: '/etc/kafka/petstore/start.sh', readOnly: true });
      expect(mountOf(name, KAFKA_SECRETS)).toEqual({ source: KAFKA_SECRETS, target: '/etc/kafka/secrets', readOnly: true });
      expect(service.user).toBe('1000:1000');
      expect(dependencies(service)[BUS_SECRETS]).toBe('service_completed_successfully');
      execFileSync('bash', ['-n', join(root, 'docker/kafka/start.sh')]);
    });

    it('formats a broker\'s storage with every principal\'s SCRAM-SHA-512 credential on its first start, and can set them again', () => {
      const script = read('docker/kafka/start.sh');
      expect(script).toMatch(/kafka-storage\.sh format --ignore-formatted[^\n]*\\\n[^\n]*"\$\{scram\[@\]\}"/);
      expect(script).toContain('--add-scram "SCRAM-SHA-512=[name=$principal,');
      expect(script).toContain('"$SECRETS"/scram/*.password');
      expect(script).toMatch(/kafka-configs\.sh --bootstrap-server "\$INTERNAL" --command-config "\$NODE_CLIENT"[^\n]*\\\n[^\n]*--add-config-file "\$config"/);
      expect(script).toContain('exec /opt/kafka/bin/kafka-server-start.sh "$PROPERTIES"');
    });

    it('gives the nodes one certificate of the Kafka CA, for every node name, to serve and to prove themselves with', () => {
      const ca = join(generated, 'ca', KAFKA_CA_FILE);
      expect(file('kafka/ca.pem')).toBe(readFileSync(ca, 'utf8'));
      const node = join(generated, 'kafka/node.pem');
      expect(file('kafka/node.pem')).toMatch(/-----BEGIN PRIVATE KEY-----[\s\S]+-----BEGIN CERTIFICATE-----/);
      execFileSync('openssl', ['verify', '-CAfile', ca, node], { stdio: 'pipe' });
      const text = execFileSync('openssl', ['x509', '-in', node, '-noout', '-subject', '-ext', 'subjectAltName,extendedKeyUsage'], { encoding: 'utf8' });
      expect(text).toMatch(new RegExp(`subject=CN\\s?=\\s?${KAFKA_NODE_NAME}\\b`));
      for (const host of [...BROKERS, 'localhost']) expect(text).toContain(`DNS:${host}`);
      expect(text).toMatch(/TLS Web Server Authentication, TLS Web Client Authentication/);
      expect([...KAFKA_HOSTS].sort()).toEqual([...BROKERS, 'localhost'].sort());
      expect({ mode: statSync(node).mode & 0o777 }).toEqual({ mode: 0o600 });
      // Not the NATS and Redis CA: that one's key is gone, so it could never sign a Kafka certificate for an existing stack.
      expect(file('ca/ca.pem')).not.toBe(readFileSync(ca, 'utf8'));
    });

    it('makes one random password per principal, in its own folder and mode 0600, and gives the brokers the same', () => {
      const principals = kafkaCredentialPrincipals();
      expect(principals.sort()).toEqual([KAFKA_ADMIN_PRINCIPAL, ...kafkaPrincipals()].sort());
      const passwords = principals.map((principal) => file(`${kafkaCredentialsFolder(principal)}/${KAFKA_PASSWORD_FILE}`));
      expect(new Set(passwords).size).toBe(principals.length);
      for (const principal of principals) {
        const own = `${kafkaCredentialsFolder(principal)}/${KAFKA_PASSWORD_FILE}`;
        expect({ principal, length: file(own).trim().length, kept: file(own) === firstKafkaRun[principal] }).toEqual({ principal, length: 32, kept: true });
        expect({ principal, broker: file(`kafka/scram/${principal}.password`) }).toEqual({ principal, broker: file(own) });
        for (const secret of [own, `kafka/scram/${principal}.password`]) expect({ secret, mode: statSync(join(generated, secret)).mode & 0o777 }).toEqual({ secret, mode: 0o600 });
        // Where bus-secrets writes the principal's folder, the principal's volume is mounted.
        expect(mountOf(BUS_SECRETS, KAFKA_CREDENTIALS[principal])?.target).toBe(`${SECRETS_ROOT}/${kafkaCredentialsFolder(principal)}`);
      }
      expect(mountOf(BUS_SECRETS, KAFKA_SECRETS)?.target).toBe(`${SECRETS_ROOT}/kafka`);
    });

    it('gives Kafka credentials to every container that is a Kafka client: the services, and kafka-provision as the administrator', () => {
      expect(clients.sort()).toEqual([...DATABASE_SERVICES, KAFKA_PROVISION].sort());
    });

    describe.each([...DATABASE_SERVICES, KAFKA_PROVISION])('%s', (name) => {
      const env = environment(services[name]);
      const principal = name === KAFKA_PROVISION ? KAFKA_ADMIN_PRINCIPAL : name;

      it('connects as its own principal, with the password bus-secrets made for it, checking the brokers against the Kafka CA', () => {
        expect({ user: env.KAFKA_SASL_USERNAME, password: env.KAFKA_SASL_PASSWORD_FILE, ca: env.KAFKA_TLS_CA_FILE }).toEqual({
          user: principal,
          password: `/var/lib/petstore/${KAFKA_PASSWORD_FILE}`,
          ca: `/etc/petstore/ca/${KAFKA_CA_FILE}`,
        });
        expect(mountOf(name, KAFKA_CREDENTIALS[principal])).toEqual({ source: KAFKA_CREDENTIALS[principal], target: '/var/lib/petstore', readOnly: true });
        expect(mountOf(name, CA_VOLUME)).toEqual({ source: CA_VOLUME, target: '/etc/petstore/ca', readOnly: true });
        // The file it reads is its principal's, as bus-secrets wrote it and gave it to the brokers.
        expect(file(`${kafkaCredentialsFolder(principal)}/${KAFKA_PASSWORD_FILE}`)).toBe(file(`kafka/scram/${principal}.password`));
        expect(existsSync(local(`${SECRETS_ROOT}/ca/${KAFKA_CA_FILE}`))).toBe(true);
      });

      it('mounts no other principal\'s password and not the brokers\' secrets', () => {
        const others = kafkaCredentialPrincipals()
          .filter((other) => other !== principal)
          .map((other) => KAFKA_CREDENTIALS[other]);
        const mounted = volumeMounts(services[name]).map((mount) => mount.source);
        expect(mounted.filter((source) => others.includes(source ?? '') || source === KAFKA_SECRETS)).toEqual([]);
      });
    });
  });
});

describe('docker-compose.yml at scale (`--scale gateway=N --scale orders=N …`)', () => {
  const haproxyConfig = read('docker/haproxy/haproxy.cfg');
  const seconds = (duration: string | undefined): number => {
    const [, amount, unit] = /^(\d+)(ms|s|m)$/.exec(duration ?? '') ?? [];
    return Number(amount) * (unit === 'ms' ? 0.001 : unit === 'm' ? 60 : 1);
  };

  it('lets every workload run as several replicas: no fixed container name, no published port but the load balancer\'s', () => {
    for (const name of APP_SERVICES) {
      expect({ name, containerName: services[name].container_name, ports: services[name].ports }).toEqual({ name, containerName: undefined, ports: undefined });
    }
  });

  it('balances the published port over every gateway replica, found through Docker\'s DNS and checked for readiness', () => {
    const [published] = String(resolved.services.haproxy.ports?.[0]).split(':').slice(-1);
    expect(haproxyConfig).toMatch(new RegExp(`^\\s*bind :${published}$`, 'm'));
    expect(volumeMounts(services.haproxy)).toContainEqual({ source: './docker/haproxy/haproxy.cfg', target: '/usr/local/etc/haproxy/haproxy.cfg', readOnly: true });
    expect(haproxyConfig).toMatch(/^\s*nameserver \w+ 127\.0\.0\.11:53$/m);
    expect(haproxyConfig).toMatch(new RegExp(`^\\s*server-template gateway 1-\\d+ gateway:${HTTP_PORTS.gateway}$`, 'm'));
    expect(haproxyConfig).toMatch(/^\s*option httpchk GET \/health\/ready$/m);
    expect(haproxyConfig).toMatch(/^\s*default-server check .*\bresolvers docker\b.*\binit-addr none\b/m);
  });

  it('takes a stopping gateway out of the balance before it stops serving', () => {
    // A gateway turns unready at SIGTERM and serves on for SHUTDOWN_DELAY_MS: HAProxy must notice within that.
    const [, inter, fall] = /default-server check inter (\d+)s fall (\d+)/.exec(haproxyConfig) ?? [];
    const delay = Number(environment(services.gateway).SHUTDOWN_DELAY_MS) / 1000;
    expect(Number(inter) * Number(fall)).toBeLessThan(delay);
  });

  it('gives every process the decided transport, shutdown and topic settings, and the time to drain', () => {
    for (const name of APP_SERVICES) {
      const env = environment(resolved.services[name]);
      expect({ name, transport: env.RPC_TRANSPORT, nats: env.NATS_SERVERS, prefix: env.NATS_SUBJECT_PREFIX }).toEqual({ name, transport: 'nats', nats: 'nats://nats:4222', prefix: '' });
      const drain = (Number(env.SHUTDOWN_DELAY_MS) + Number(env.DRAIN_TIMEOUT_MS)) / 1000;
      expect(drain).toBeGreaterThan(0);
      expect({ name, enough: seconds(services[name].stop_grace_period) > drain }).toEqual({ name, enough: true });
    }
    for (const name of DATABASE_SERVICES) {
      expect(environment(resolved.services[name])).toMatchObject({ KAFKA_TOPIC_PARTITIONS: '12', KAFKA_REPLICATION_FACTOR: '1', KAFKA_MIN_INSYNC_REPLICAS: '1' });
    }
    expect(services.nats.image).toBe('nats:2.9');
  });

  it('shares the rate limit between the gateways through the Redis service', () => {
    expect(new URL(environment(services.gateway).RATE_LIMIT_REDIS_URL).host).toBe('redis:6379');
    expect(services.redis.image).toBe('redis:7.0-bookworm');
  });

  describe('with the kafka-cluster settings', () => {
    const brokers = ['kafka', ...CLUSTER_BROKERS];

    it('runs three KRaft nodes that all name the same three voters, each advertising its own service name', () => {
      expect(clusterEnv.COMPOSE_PROFILES).toBe('kafka-cluster');
      const voters = brokers.map((name) => environment(cluster.services[name]).KAFKA_CONTROLLER_QUORUM_VOTERS);
      expect(new Set(voters).size).toBe(1);
      const byId = Object.fromEntries(voters[0].split(',').map((voter) => /^(\d+)@([^:]+):9093$/.exec(voter)?.slice(1, 3) ?? []));
      for (const name of brokers) {
        const env = environment(cluster.services[name]);
        expect(byId[env.KAFKA_NODE_ID]).toBe(name);
        expect(env.KAFKA_ADVERTISED_LISTENERS).toBe(`SASL_SSL://${name}:9092,INTERNAL://${name}:9094`);
        expect(env.CLUSTER_ID).toBe(environment(cluster.services.kafka).CLUSTER_ID);
        expect(env).toMatchObject({ KAFKA_DEFAULT_REPLICATION_FACTOR: '3', KAFKA_MIN_INSYNC_REPLICAS: '2', KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR: '3', KAFKA_TRANSACTION_STATE_LOG_MIN_ISR: '2' });
      }
      expect(Object.keys(byId)).toHaveLength(3);
    });

    it('points every service at all three brokers, with topics replicated three times and two in sync', () => {
      for (const name of DATABASE_SERVICES) {
        expect(environment(cluster.services[name])).toMatchObject({ KAFKA_BROKERS: 'kafka:9092,kafka-2:9092,kafka-3:9092', KAFKA_REPLICATION_FACTOR: '3', KAFKA_MIN_INSYNC_REPLICAS: '2' });
      }
    });
  });
});

describe('Dockerfile', () => {
  const all = stages(parseDockerfile(read('Dockerfile')));
  const byName = (name: string): Stage => {
    const stage = all.find((candidate) => candidate.name === name);
    if (!stage) throw new Error(`no stage named ${name}`);
    return stage;
  };
  const runs = (stage: Stage): string[] =>
    stage.instructions.filter((instruction) => instruction.keyword === 'RUN').map((instruction) => instruction.args);
  const final = all[all.length - 1];

  it('names no frontend image (a `# syntax=` line would be pulled from a registry on every build)', () => {
    expect(read('Dockerfile')).not.toMatch(/^#\s*syntax\s*=/im);
  });

  it('silences no Node warning, and gives the password volume to node', () => {
    expect(envOf(final).NODE_OPTIONS).not.toContain('--disable-warning');
    const kafkaFolders = kafkaCredentialPrincipals().map(kafkaCredentialsFolder);
    const folders = ['gateway', 'catalog', 'orders', 'inventory', 'nats', 'redis', 'kafka', ...kafkaFolders, 'ca'].map((folder) => `/var/lib/petstore/${folder}`);
    const prepare = runs(final).find((command) => command.includes('chown -R node:node /var/lib/petstore'));
    for (const folder of folders) expect({ folder, made: prepare?.includes(folder) }).toEqual({ folder, made: true });
    // bus-secrets makes its certificates with openssl.
    expect(prepare).toMatch(/apt-get install -y --no-install-recommends openssl\b/);
  });

  it('installs, builds and ships in separate stages', () => {
    expect(all.map((stage) => stage.name)).toEqual(['deps', 'build', 'runtime']);
    expect(byName('build').base).toBe('deps');
    expect(runs(byName('deps')).some((command) => /\bnpm ci\b/.test(command))).toBe(true);
  });

  it('builds the app named by the APP build argument with the workspace’s Nx target', () => {
    const build = byName('build');
    expect(build.instructions).toContainEqual(expect.objectContaining({ keyword: 'ARG', args: 'APP' }));
    expect(envOf(build)).toMatchObject({ NX_DAEMON: 'false', NX_NO_CLOUD: 'true' });
    expect(runs(build).some((command) => command.includes('npx nx build "$APP"'))).toBe(true);
  });

  it('runs on Node 24 LTS, slim, in production mode, with only production dependencies', () => {
    expect(final.base).toMatch(/^node:24(\.\d+)*-bookworm-slim$/);
    expect(all.every((stage) => stage.base === 'deps' || /^node:24/.test(stage.base))).toBe(true);
    expect(envOf(final).NODE_ENV).toBe('production');
    expect(final.instructions).toContainEqual(expect.objectContaining({ keyword: 'ARG', args: 'APP' }));
    expect(runs(final).some((command) => /\bnpm ci --omit=dev\b/.test(command))).toBe(true);
    const copies = final.instructions.filter((instruction) => instruction.keyword === 'COPY').map((instruction) => instruction.args);
    expect(copies.length).toBeGreaterThan(0);
    for (const copy of copies) expect(copy).toMatch(/^--from=build \/workspace\/dist\/apps\/\$\{APP\}\//);
  });

  it('runs as the unprivileged node user', () => {
    const users = final.instructions.filter((instruction) => instruction.keyword === 'USER');
    expect(users.map((instruction) => instruction.args)).toEqual(['node']);
    const lastUser = final.instructions.lastIndexOf(users[users.length - 1]);
    const lastRun = final.instructions.map((instruction) => instruction.keyword).lastIndexOf('RUN');
    expect(lastUser).toBeGreaterThan(lastRun);
  });

  it('starts the bundle with node and checks readiness on HTTP_PORT', () => {
    const commands = final.instructions.filter((instruction) => instruction.keyword === 'CMD');
    expect(commands.map((instruction) => JSON.parse(instruction.args))).toEqual([['node', 'main.js']]);
    const healthcheck = final.instructions.find((instruction) => instruction.keyword === 'HEALTHCHECK');
    expect(healthcheck?.args).toContain('process.env.HTTP_PORT');
    expect(healthcheck?.args).toContain('/health/ready');
  });

  it('bakes in no secret and copies no local environment file', () => {
    for (const stage of all) {
      for (const instruction of stage.instructions) {
        if (['ENV', 'ARG', 'LABEL'].includes(instruction.keyword)) {
          expect({ line: instruction.line, args: instruction.args }).not.toEqual({
            line: instruction.line,
            args: expect.stringMatching(/PASSWORD|SECRET|TOKEN|API_KEY|DATABASE_URL/i),
          });
        }
        if (['COPY', 'ADD'].includes(instruction.keyword)) {
          expect({ line: instruction.line, args: instruction.args }).not.toEqual({
            line: instruction.line,
            args: expect.stringMatching(/\.env\b|https?:\/\//),
          });
        }
      }
    }
  });
});

describe('.dockerignore', () => {
  const patterns = read('.dockerignore')
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  const ignores = (path: string): boolean => patterns.includes(path) || patterns.includes(`**/${path}`);

  it.each(['node_modules', 'dist', '.nx', '.git', 'coverage', 'tmp', '.env'])('keeps %s out of the build context', (path) => {
    expect(ignores(path)).toBe(true);
  });

  it('does not re-include anything', () => {
    expect(patterns.filter((pattern) => pattern.startsWith('!'))).toEqual([]);
  });
});

describe('.env.example', () => {
  const entries = read('.env.example')
    .split(/\r?\n/)
    .filter((line) => /^[A-Z_][A-Z0-9_]*=/.test(line))
    .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)] as const);

  it('lists the required secrets with empty values, so nothing starts on a placeholder', () => {
    expect(Object.fromEntries(entries)).toEqual({ POSTGRES_PASSWORD: '', API_KEYS: '' });
  });

  it('mentions every variable the compose file reads', () => {
    const text = read('.env.example');
    const variables = new Set(references(composeText).map((reference) => reference.name));
    for (const variable of variables) expect({ variable, mentioned: text.includes(variable) }).toEqual({ variable, mentioned: true });
  });
});
