// The saga floor's two sides (saga-floor.ts), one process each or replicas of each, on their own
// databases and topics, as a load target of the saga's measurements.
import { fork, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import * as pg from 'pg';
import { topicSettingsFromEnv } from '@petstore/kafka';
import { kafkaCredentials } from '@petstore/stack';
import { benchKafka, kafkaSecretsOf, type Layout } from './bench-kafka';
import { sleep } from './figures';
import { SAGA_FLOOR_FRONT_PORT, SAGA_FLOOR_PORT, STOCK_PER_PET, type Settings } from './knobs';
import { sagaStages, type StageSources } from './saga-stages';
import { orderRequest, type Target } from './target';

/** The floor's topic settings: partitions and replication, and any configuration entries. */
export interface FloorTopics {
  numPartitions: number;
  replicationFactor: number;
  configEntries?: { name: string; value: string }[];
}

export type SagaFloor = Awaited<ReturnType<typeof startSagaFloor>>;

/** Fresh databases for the floor, owned by the owner role as the migrations' are (the floor has no roles of its own). */
async function freshDatabases(layout: Layout) {
  const base = new URL(layout.envs.orders.MIGRATION_DATABASE_URL);
  const databaseUrl = (name: string) => Object.assign(new URL(base), { pathname: `/${name}` }).toString();
  const urls = { orders: databaseUrl('petstore_floor_orders_bench'), inventory: databaseUrl('petstore_floor_inventory_bench') };
  const admin = new pg.Client({ connectionString: databaseUrl('postgres') });
  await admin.connect();
  for (const url of Object.values(urls)) {
    const name = new URL(url).pathname.slice(1);
    await admin.query(`drop database if exists "${name}" with (force)`);
    await admin.query(`create database "${name}"`);
  }
  await admin.end();
  return urls;
}

async function createTopics(layout: Layout, names: string[], topics: FloorTopics) {
  const kafkaAdmin = benchKafka(layout, 'bench-floor').admin();
  await kafkaAdmin.connect();
  await kafkaAdmin.createTopics({ waitForLeaders: false, topics: names.map((topic) => ({ topic, ...topics })) });
  // A cluster's brokers learn of new topics one after the other, so (as libs/kafka's
  // provisionTopics does) several answers in a row must show every partition led.
  const deadline = Date.now() + 15_000;
  for (let ledAnswers = 0; ledAnswers < 3; ) {
    const metadata = await kafkaAdmin.fetchTopicMetadata({ topics: names }).catch(() => undefined);
    const led = metadata?.topics.every((topic) => topic.partitions.length > 0 && topic.partitions.every((partition) => partition.leader >= 0));
    ledAnswers = led ? ledAnswers + 1 : 0;
    if (Date.now() > deadline) throw new Error(`the floor's topics have no leaders: ${names.join(', ')}`);
    await sleep(50);
  }
  await kafkaAdmin.disconnect();
}

/** The stack's topics' partitions and replication (KAFKA_TOPIC_PARTITIONS, …), so that the floor's consumers split their work alike. */
function stackTopics(): FloorTopics {
  const { partitions, replicationFactor } = topicSettingsFromEnv();
  return { numPartitions: partitions, replicationFactor };
}

/** Where the floor takes its orders: over HTTP itself, or through a front that sends them on over NATS as the gateway does. */
type FloorFront = NonNullable<Settings['FLOOR_FRONT']>;

/**
 * The two sides of the saga floor on their own databases and topics (on `layout`'s brokers, with
 * `topics`' partitions and replication, the stack's unless told), with the order pets stocked;
 * with `front` 'nats', a front that takes the orders and sends each over `layout`'s NATS server
 * (which must know the `harness` user: stackLayout's `harness`). With `replicas` above one, each
 * side runs that many processes, as the scaled stack runs its tiers: the replicas of a side share
 * its consumer group and its tables, those of the orders side its port (the kernel spreads the
 * load generator's connections over them), and each replica relays the outbox rows it committed
 * (claimed with SKIP LOCKED, so two never send the same row). The front runs as many processes on
 * one shared port (the kernel spreads connections over them, where the cluster's gateways sit
 * behind HAProxy), and NATS's queue group spreads their requests over the orders side's
 * processes, as it spreads the gateways' over the orders replicas.
 */
export async function startSagaFloor(
  layout: Layout,
  namespace: string,
  petIds: number[],
  { topics = stackTopics(), front = 'none', replicas = 1 }: { topics?: FloorTopics; front?: FloorFront; replicas?: number } = {},
) {
  if (front === 'nats' && !layout.nats.harness) throw new Error("the saga floor's front needs a NATS server that knows the harness user (stackLayout's harness)");
  const urls = await freshDatabases(layout);
  await createTopics(layout, ['floor.orders', 'floor.stock'].map((topic) => `${namespace}${topic}`), topics);
  // The harness user serves and sends on `<prefix>harness.>` only (libs/contracts natsServerConfig).
  const hop = front === 'nats' ? { ...layout.nats.envOf('harness'), PLACE_SUBJECT: `${layout.nats.subjectPrefix}harness.floor-place` } : {};
  /** Every process started so far: a side that fails to start takes the others down with it. */
  const started: ChildProcess[] = [];
  const start = (role: 'front' | 'orders' | 'inventory') => {
    // A program of its own beside this bundle (dist/tools/bench/saga-floor.js).
    const child = fork(path.join(__dirname, 'saga-floor.js'), [role], {
      env: {
        ...process.env,
        ...kafkaCredentials(kafkaSecretsOf(layout), 'admin'),
        ...(role === 'inventory' ? {} : hop),
        DATABASE_URL: role === 'front' ? '' : urls[role],
        KAFKA_BROKERS: layout.envs.orders.KAFKA_BROKERS,
        NAMESPACE: namespace,
        PORT: String(role === 'front' ? SAGA_FLOOR_FRONT_PORT : SAGA_FLOOR_PORT),
        SHARED_PORT: String(replicas > 1),
      },
    });
    started.push(child);
    const ready = new Promise((resolve, reject) => {
      child.once('message', resolve);
      child.once('exit', (code) => reject(new Error(`saga floor ${role} exited (${code})`)));
    });
    return { child, ready };
  };
  /** A side's processes, started one after the other (each orders or inventory process creates its side's tables if they are missing), named as the stack's replicas are: `<side>-<n>`. */
  const startSide = async (role: 'front' | 'orders' | 'inventory') => {
    const side: Record<string, ChildProcess> = {};
    for (let n = 1; n <= replicas; n += 1) {
      const one = start(role);
      await one.ready;
      side[replicas > 1 ? `floor ${role}-${n}` : `floor ${role}`] = one.child;
    }
    return side;
  };
  const startAll = async () => {
    const inventory = await startSide('inventory');
    const stock = new pg.Client({ connectionString: urls.inventory });
    await stock.connect();
    await stock.query('insert into floor_stock (pet_id, quantity) select unnest($1::bigint[]), $2', [petIds, STOCK_PER_PET]);
    await stock.end();
    const orders = await startSide('orders');
    const frontSide = front === 'nats' ? await startSide('front') : undefined;
    return { inventory, orders, frontSide };
  };
  const { inventory, orders, frontSide } = await startAll().catch((error: unknown) => {
    for (const child of started) child.kill('SIGTERM');
    throw error;
  });
  const ordersDb = new pg.Pool({ connectionString: urls.orders, max: 2 });
  const processes = { ...frontSide, ...orders, ...inventory };
  // The floor's five moments, as the stack's: its events carry the order id at the top.
  const stageSources: StageSources = {
    orders: { url: urls.orders, table: 'floor_order' },
    reservations: { url: urls.inventory, table: 'floor_reservation' },
    topics: { orderPlaced: `${namespace}floor.orders`, stock: `${namespace}floor.stock` },
    orderIdOf: (_kind, value) => (value as { orderId?: unknown }).orderId,
  };
  return {
    ordersDb,
    processes,
    /** The floor as a load target of `capacity` and `atRate`, placing orders for `nextPetId()`. */
    target: (nextPetId: () => number): Target => ({
      url: `http://127.0.0.1:${frontSide ? SAGA_FLOOR_FRONT_PORT : SAGA_FLOOR_PORT}/orders`,
      db: ordersDb,
      table: 'floor_order',
      processes,
      request: () => orderRequest({ 'content-type': 'application/json' }, nextPetId)(),
      stages: (since) => sagaStages(layout, stageSources, since),
    }),
    async stop() {
      for (const child of Object.values(processes)) child.kill('SIGTERM');
      await ordersDb.end().catch(() => undefined);
    },
  };
}
