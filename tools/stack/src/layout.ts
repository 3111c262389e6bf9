// One stack's ports, names and variables: every process of it, and what reaches them.
import { kafkaCredentials, kafkaSecretsDir } from './kafka';
import { NATS_PORT, natsServer, type NatsServer } from './nats';

export const SERVICES = ['catalog', 'orders', 'inventory'] as const;
export const APPS = [...SERVICES, 'gateway'] as const;
export type Service = (typeof SERVICES)[number];
export type App = (typeof APPS)[number];
export const DEV_API_KEY = 'dev-key-0123456789';

/** A process's environment: what the stack sets over the caller's own. */
export type ProcessEnv = Record<string, string>;

export interface StackLayoutOptions {
  offset?: number;
  databaseSuffix?: string;
  namespace?: string;
  kafkaBrokers?: string;
  kafkaSecrets?: string;
  subjectPrefix?: string;
  natsPort?: number;
  unsecured?: boolean;
  /** The NATS server also knows the `harness` user (libs/contracts natsServerConfig), for the benchmark's saga floor to send its orders over. */
  harness?: boolean;
}

export interface StackLayout {
  envs: Record<App, ProcessEnv>;
  urls: Record<App, string>;
  /** Where each process serves GET /metrics: the services on their HTTP port, the gateway on METRICS_PORT. */
  metricsUrls: Record<App, string>;
  /** Absent when the layout is unsecured: its broker knows no one. */
  kafkaSecrets?: string;
  nats: NatsServer;
}

const HTTP_PORTS: Record<App, number> = { gateway: 3000, catalog: 3001, orders: 3002, inventory: 3003 };
const RPC_PORTS: Record<Service, number> = { catalog: 4001, orders: 4002, inventory: 4003 };

/**
 * Ports and names of one stack; `offset` moves every port so a test stack can run beside a dev stack.
 * Each stack has a NATS server of its own (TLS, a user per process allowed its own subjects only);
 * its RPC subjects carry its namespace (the development stack's: `dev.`).
 * `unsecured`: for the benchmark of what the bus's security costs only, a stack whose processes
 * connect to `kafkaBrokers` (a plaintext broker) and to their NATS server without credentials or
 * TLS, as BUS_SECURITY_OFF_BENCH_ONLY=true, which each of them requires for that, lets them.
 */
export function stackLayout({
  offset = 0,
  databaseSuffix = '',
  namespace = '',
  kafkaBrokers = process.env.KAFKA_BROKERS ?? '127.0.0.1:9092',
  kafkaSecrets = kafkaSecretsDir(),
  subjectPrefix = namespace || 'dev.',
  natsPort = NATS_PORT + offset,
  unsecured = false,
  harness = false,
}: StackLayoutOptions = {}): StackLayout {
  const nats = natsServer(natsPort, subjectPrefix, { unsecured, harness });
  // Who each process is to Kafka; with the bus unsecured, nobody.
  const kafkaIdentity = unsecured ? () => ({}) : (principal: string) => kafkaCredentials(kafkaSecrets, principal);
  const rpcTransport = (identity: string): ProcessEnv => ({
    RPC_TRANSPORT: process.env.RPC_TRANSPORT ?? 'nats',
    ...(process.env.RPC_TRANSPORT === 'tcp' ? { RPC_TCP_BENCH_ONLY: process.env.RPC_TCP_BENCH_ONLY as string } : {}),
    NATS_SUBJECT_PREFIX: subjectPrefix,
    ...nats.envOf(identity),
    ...(unsecured ? { BUS_SECURITY_OFF_BENCH_ONLY: 'true' } : {}),
  });
  const port = (n: number) => n + offset;
  const rpcAddress = (name: Service) => `127.0.0.1:${port(RPC_PORTS[name])}`;
  const envs = {} as Record<App, ProcessEnv>;
  for (const name of SERVICES) {
    // Each service serves as its own role, named after its database, that can reach that database only;
    // `migrate` runs as the owner (postgres) and gives the role its grants (libs/database).
    const database = `petstore_${name}${databaseSuffix}`;
    envs[name] = {
      HTTP_PORT: String(port(HTTP_PORTS[name])),
      RPC_PORT: String(port(RPC_PORTS[name])),
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
    HTTP_PORT: String(port(HTTP_PORTS.gateway)),
    // GET /metrics of the gateway: on its own port, the public one only serves the API.
    METRICS_PORT: String(port(HTTP_PORTS.gateway + 100)),
    HOST: process.env.HOST ?? '127.0.0.1',
    CATALOG_RPC: rpcAddress('catalog'),
    ORDERS_RPC: rpcAddress('orders'),
    INVENTORY_RPC: rpcAddress('inventory'),
    ...rpcTransport('gateway'),
  };
  const urls = Object.fromEntries(APPS.map((name) => [name, `http://127.0.0.1:${port(HTTP_PORTS[name])}`])) as Record<App, string>;
  const metricsUrls = { ...urls, gateway: `http://127.0.0.1:${envs.gateway.METRICS_PORT}` };
  return { envs, urls, metricsUrls, kafkaSecrets: unsecured ? undefined : kafkaSecrets, nats };
}
