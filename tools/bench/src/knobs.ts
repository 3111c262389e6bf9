// What a run measures and for how long: every BENCH_* variable, read once, with its default.
import { randomBytes } from 'node:crypto';
import * as os from 'node:os';
import * as path from 'node:path';
import { NATS_PORT, REDIS_PORT } from '@petstore/stack';

const env = (name: string, fallback: string | number): string => process.env[name] ?? String(fallback);
const numbers = (name: string, fallback: string): number[] => env(name, fallback).split(',').map(Number);

/** The figures a run's settings are reported as (docs/bench/raw-*.json keeps these names). */
export const SETTINGS = {
  READ_SECONDS: Number(env('BENCH_READ_SECONDS', 10)),
  CAPACITY_SECONDS: Number(env('BENCH_CAPACITY_SECONDS', 20)),
  RATE_SECONDS: Number(env('BENCH_RATE_SECONDS', 20)),
  /** Unmeasured seconds at a run's rate just before it, so that no figure includes the pipeline waking from idle. */
  RATE_WARMUP_SECONDS: Number(env('BENCH_RATE_WARMUP_SECONDS', 3)),
  RATES: numbers('BENCH_RATES', '100,250,500,1000'),
  WAIT_RATES: numbers('BENCH_WAIT_RATES', '100,250'),
  CONNECTIONS: Number(env('BENCH_CONNECTIONS', 32)),
  CAPACITY_CONNECTIONS: Number(env('BENCH_CAPACITY_CONNECTIONS', 64)),
  SOAK_MINUTES: Number(env('BENCH_SOAK_MINUTES', 0)),
  SOAK_RATE: Number(env('BENCH_SOAK_RATE', 200)),
  /** Seconds with nothing to do before each run of the lull section (0: no lull section). */
  LULL_SECONDS: Number(env('BENCH_LULL_SECONDS', 0)),
  LULL_RATE: Number(env('BENCH_LULL_RATE', 250)),
  LULL_LOAD_SECONDS: Number(env('BENCH_LULL_LOAD_SECONDS', 10)),
  /** `nats`: the saga floor takes its orders through a front of its own over NATS, the hop the gateway makes (saga-floor.ts); `none`: over HTTP itself. */
  FLOOR_FRONT: env('BENCH_FLOOR_FRONT', 'none') as 'none' | 'nats',
};
/** Raws from before these were settings have none: no front for the floor, no warm-up before a fixed rate, no lull. */
type LaterSettings = 'FLOOR_FRONT' | 'RATE_WARMUP_SECONDS' | 'LULL_SECONDS' | 'LULL_RATE' | 'LULL_LOAD_SECONDS';
export type Settings = Omit<typeof SETTINGS, LaterSettings> & Partial<Pick<typeof SETTINGS, LaterSettings>>;

export const IDLE_SECONDS = Number(env('BENCH_IDLE_SECONDS', 60));

/** The sections this run measures; a soak only when it is given minutes, the lulls only when they are given seconds. */
export const SECTIONS = new Set(env('BENCH_ONLY', 'reads,floor,capacity,rates,wait,idle,tracing,security,cluster').split(','));
if (SETTINGS.SOAK_MINUTES > 0) SECTIONS.add('soak');
if (SETTINGS.LULL_SECONDS > 0) SECTIONS.add('lull');

/** BENCH_ONLY=transports: the read path and saga capacity on a stack restarted with each RPC transport, in turn. */
export const TRANSPORTS = env('BENCH_TRANSPORTS', 'tcp,nats,tcp,nats').split(',');
/** BENCH_ONLY=security: the same with the bus's authentication and TLS on, then off, in turn. */
export const SECURITY = env('BENCH_SECURITY', 'on,off,on,off').split(',') as ('on' | 'off')[];
/** The read path's rounds: every path of every query once per round, the target reading the mean of the rounds. */
export const READ_ROUNDS = Number(env('BENCH_READ_ROUNDS', 2));
/** Saga capacity's rounds: the floor's run, then the stack's at once after it, the target reading the mean of the rounds' stack / floor. */
export const SAGA_ROUNDS = Number(env('BENCH_SAGA_ROUNDS', 2));
/** The fixed rates' rounds at the targets' rates (250 and 1,000/s): the pair runs again, each later round in the other order, the targets reading the means. */
export const RATE_ROUNDS = Number(env('BENCH_RATE_ROUNDS', 2));
/** The lull section's rounds: the floor and the stack after a lull each, each later round in the other order. */
export const LULL_ROUNDS = Number(env('BENCH_LULL_ROUNDS', 2));
/** BENCH_ONLY=tracing: rounds of off, every trace and the chart's share, each run on a freshly restarted stack. */
export const TRACING_ROUNDS = Number(env('BENCH_TRACING_ROUNDS', 2));
/** What authentication and TLS on the bus may cost at most: a target the report compares against, never asserts. */
export const SECURITY_TARGET = 0.9;

/** BENCH_CPU_PROF=<dir>: every stack process writes a V8 CPU profile there when it stops. */
export const CPU_PROFILE_DIR = process.env.BENCH_CPU_PROF;
/** BENCH_BASELINE_GATEWAY=<main.js of another gateway build>: measured beside the stack's own on the read path. */
export const BASELINE_GATEWAY = process.env.BENCH_BASELINE_GATEWAY;
/** BENCH_CLUSTER_REPLICAS=<n>: n replicas of every tier in the cluster section instead of its own two. */
export const CLUSTER_REPLICAS = Number(env('BENCH_CLUSTER_REPLICAS', 0));
/** BENCH_CLUSTER_FLOOR_REPLICAS=<n>: n processes of each side of the saga floor in the cluster section instead of as many as the cluster has replicas of each tier. */
export const CLUSTER_FLOOR_REPLICAS = Number(env('BENCH_CLUSTER_FLOOR_REPLICAS', 0));

const CACHE = process.env.PETSTORE_CACHE ?? path.join(os.homedir(), '.cache/petstore');
/** The everyday broker's data, whose process the CPU accounting counts as kafka. */
export const KAFKA_DATA_DIR = process.env.KAFKA_DATA_DIR ?? path.join(os.homedir(), '.cache/petstore/kafka-data');

/**
 * The bus with nothing checked, beside the bench's own (+20000): a plaintext broker, a NATS server
 * and a Redis of its own, started with the security section and stopped after it. Only that
 * section's processes connect to them, with BUS_SECURITY_OFF_BENCH_ONLY=true, which they require for that.
 */
export const UNSECURED_BUS = {
  kafka: { port: 29_092, controllerPort: 29_093, dataDir: path.join(CACHE, 'kafka-data-bench-plaintext'), plaintext: true },
  natsPort: NATS_PORT + 20_001,
  redisPort: REDIS_PORT + 20_001,
};
/** The rate limit's Redis of the secured half: the bench cluster's (+20000), which it starts itself anyway. */
export const SECURED_REDIS_PORT = REDIS_PORT + 20_000;

/** The cluster section's own brokers, beside the bench's ports (+20000): nodes on 29192, 29202, 29212. */
export const BENCH_CLUSTER_KAFKA = { port: 29192, dataDir: path.join(CACHE, 'kafka-cluster-bench') };

/** The machine's PostgreSQL as its superuser: the server's version, and a commit's cost on a temporary table. */
export const ADMIN_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
export const ORDER_PETS = 30;
export const STOCK_PER_PET = 1_000_000;
export const API_KEY = `bench-${randomBytes(12).toString('hex')}`;
export const FLOOR_PORT = 23_999;
export const SAGA_FLOOR_PORT = 23_998;
export const SAGA_FLOOR_FRONT_PORT = 23_997;
