// The stack in scaled form on one machine: three Kafka brokers, every tier as several replicas
// (HAProxy in front of the gateways: haproxy.ts). Its layout and its brokers.
import * as path from 'node:path';
import { kafkaScriptEnv, kafkaSecretsDir, runKafkaSh, runKafkaShSync } from '../kafka';
import { SERVICES, stackLayout, type ProcessEnv, type StackLayout } from '../layout';
import { CLUSTER_NATS_PORT } from '../nats';
import { CACHE } from '../paths';
import { REDIS_PORT, redisServer, type RedisServer } from '../redis';

/** A three-node cluster of scripts/kafka.sh: node n listens on port + 10 × (n − 1) (controllers one above). */
export interface ClusterKafka {
  port: number;
  dataDir: string;
}

/**
 * The development cluster takes 9192, 9202, 9212, clear of the single broker (9092), the
 * end-to-end one (19092) and the chaos one (28092).
 */
export const CLUSTER_KAFKA: ClusterKafka = { port: 9192, dataDir: path.join(CACHE, 'kafka-cluster') };

/** Replicas per tier in `npm run cluster`. */
export const REPLICAS: Record<string, number> = { catalog: 2, orders: 2, inventory: 2, gateway: 2 };

/** Replica n of a tier listens on the tier's ports + 10 × n; the gateway's own ports stay the balancer's. */
const REPLICA_PORT_STEP = 10;

/**
 * How long a stopping gateway keeps serving after SIGTERM: requests HAProxy already sent on its
 * kept connections are served, not refused; after it, a refusal (503) is retried on the other.
 */
const GATEWAY_SHUTDOWN_DELAY_MS = 2000;

export function brokersOf(kafka: ClusterKafka): string {
  return [0, 1, 2].map((i) => `127.0.0.1:${kafka.port + 10 * i}`).join(',');
}

/** The environment of `scripts/kafka.sh cluster` acting on `kafka`. */
export function clusterKafkaEnv(kafka: ClusterKafka): NodeJS.ProcessEnv {
  return {
    ...process.env,
    ...kafkaScriptEnv(),
    KAFKA_CLUSTER_PORT: String(kafka.port),
    KAFKA_CLUSTER_DATA_DIR: kafka.dataDir,
    // A broker that rejoins a busy cluster on a loaded two-core machine can take over a minute.
    KAFKA_WAIT_TIMEOUT: process.env.KAFKA_WAIT_TIMEOUT ?? '180',
  };
}

function clusterArgs(command: string, node?: number | string): string[] {
  return ['cluster', command, ...(node ? [String(node)] : [])];
}

/** `scripts/kafka.sh cluster <command> [node]`, blocking (start-up and tear-down). */
export function clusterKafka(command: string, kafka: ClusterKafka = CLUSTER_KAFKA, node?: number | string): void {
  runKafkaShSync(clusterArgs(command, node), clusterKafkaEnv(kafka), `Kafka cluster ${command}`);
}

/** The same, without blocking the load a fault test runs meanwhile; resolves with the output. */
export function clusterKafkaAsync(command: string, kafka: ClusterKafka = CLUSTER_KAFKA, node?: number | string): Promise<string> {
  return runKafkaSh(clusterArgs(command, node), clusterKafkaEnv(kafka));
}

export interface ClusterLayoutOptions {
  offset?: number;
  databaseSuffix?: string;
  namespace?: string;
  kafka?: ClusterKafka;
  replicas?: Record<string, number>;
  subjectPrefix?: string;
  /** The NATS server also knows the `harness` user, as stackLayout's `harness`. */
  harness?: boolean;
}

/** The scaled stack's layout: the single stack's, plus every replica by name (`orders-1`, `gateway-2`). */
export interface ClusterLayout extends StackLayout {
  kafka: ClusterKafka;
  brokers: string;
  redis: RedisServer;
  envOf(name: string): ProcessEnv;
  urlOf(name: string): string;
  metricsUrlOf(name: string): string;
  /** Every service replica's name. */
  services: string[];
  gateways: string[];
  balancer: { port: number; statsPort: number };
}

/**
 * The scaled stack's layout: the single stack's with every replica on its own ports, the topics
 * replicated 3 times with 2 in sync, RPC over NATS, the rate limit counted in Redis. Replicas
 * are named `<tier>-<n>` (`orders-1`, `gateway-2`); more can be added later by name.
 */
export function clusterLayout({
  offset = 0,
  databaseSuffix = '_cluster',
  namespace = '',
  kafka = CLUSTER_KAFKA,
  replicas = REPLICAS,
  subjectPrefix = namespace || 'cluster.',
  harness = false,
}: ClusterLayoutOptions = {}): ClusterLayout {
  const brokers = brokersOf(kafka);
  // RPC over NATS comes with the single stack's layout, on a NATS server of the cluster's own.
  const base = stackLayout({
    offset,
    databaseSuffix,
    namespace,
    kafkaBrokers: brokers,
    kafkaSecrets: kafkaSecretsDir(kafka),
    subjectPrefix,
    natsPort: CLUSTER_NATS_PORT + offset,
    harness,
  });
  const shared = { KAFKA_REPLICATION_FACTOR: '3', KAFKA_MIN_INSYNC_REPLICAS: '2' };
  // Also the tiers' own: provisioning (runMigrations) creates the topics with these settings.
  for (const tier of SERVICES) Object.assign(base.envs[tier], shared);
  // The gateways count the rate limit in a Redis of the cluster's own, as its ACL user.
  const redis = redisServer(REDIS_PORT + offset);
  const envs: Record<string, ProcessEnv> = base.envs;
  const shift = (value: string, n: number) => String(Number(value) + REPLICA_PORT_STEP * n);
  // Where replica 1 of a service serves RPC: the address the TCP transport (RPC_TRANSPORT=tcp) reaches.
  const rpcOfFirst = (tier: string) => `127.0.0.1:${shift(envs[tier].RPC_PORT, 1)}`;
  const envOf = (name: string): ProcessEnv => {
    const [tier, number] = name.split('-');
    const n = Number(number);
    if (!envs[tier] || !Number.isInteger(n) || n < 1) throw new Error(`No such replica: ${name} (a tier and a number, e.g. orders-2)`);
    const env: ProcessEnv = { ...envs[tier], ...shared, HTTP_PORT: shift(envs[tier].HTTP_PORT, n) };
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
  const names = (tier: string) => Array.from({ length: replicas[tier] ?? 0 }, (_, i) => `${tier}-${i + 1}`);
  const urlOf = (name: string) => `http://127.0.0.1:${envOf(name).HTTP_PORT}`;
  const metricsUrlOf = (name: string) => (name.startsWith('gateway') ? `http://127.0.0.1:${envOf(name).METRICS_PORT}` : urlOf(name));
  return {
    ...base,
    kafka,
    brokers,
    redis,
    envOf,
    urlOf,
    metricsUrlOf,
    services: SERVICES.flatMap(names),
    gateways: names('gateway'),
    balancer: { port: Number(base.envs.gateway.HTTP_PORT), statsPort: Number(base.envs.gateway.HTTP_PORT) + 200 },
  };
}
