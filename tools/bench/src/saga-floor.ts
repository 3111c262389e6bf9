// The floor of the saga benchmark, a program of its own (dist/tools/bench/saga-floor.js): the
// order saga's hops done with nothing but node:http, pg and kafkajs — HTTP accept → order + outbox
// row in one statement → publish → consume → reserve stock (entry locked, reservation + answer in
// the same transaction) → publish → consume → decide. Each side deduplicates by event id and
// handles a fetch's batches in one transaction, as the services do; there is no Nest, no ORM, no
// gateway hop and no catalog. `saga-floor.js orders|inventory` runs one side; the bench starts both,
// and in the cluster section as many of each side as the stack has replicas of each tier.
// `saga-floor.js front` (BENCH_FLOOR_FRONT=nats) is the gateway's hop alone: a node:http process that
// sends each order over NATS (TLS, a user of its own) to the orders side, which then serves the
// placement there too, so the floor can be measured with the one hop the stack's design requires.
// Orders and reservations keep their transactions' start times, the moments the stages read (saga-stages.ts).
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type * as net from 'node:net';
// kafkajs with the workspace's fixes: the floor does not pay for a kafkajs bug the stack does not have.
import { kafkajs, OFFSET_COMMIT_INTERVAL_MS } from '@petstore/kafka';
import { natsClientOptions } from '@petstore/stack';
import { connect, JSONCodec } from 'nats';
import { Client, Pool, type PoolClient } from 'pg';
import { natsRequests } from './nats-requests';
import { decide, type FloorAnswer, type FloorOrder } from './saga-floor-reserve';

const role = process.argv[2] as 'front' | 'orders' | 'inventory';
const { DATABASE_URL, KAFKA_BROKERS = '', NAMESPACE, PORT, PLACE_SUBJECT } = process.env;
const ORDERS_TOPIC = `${NAMESPACE}floor.orders`;
const STOCK_TOPIC = `${NAMESPACE}floor.stock`;

const pool = new Pool({ connectionString: DATABASE_URL, max: 10 });
const { KAFKA_SASL_USERNAME = '', KAFKA_SASL_PASSWORD_FILE = '', KAFKA_TLS_CA_FILE = '' } = process.env;
const read = (file: string) => fs.readFileSync(file, 'utf8').trim();
const kafka = new kafkajs.Kafka({
  clientId: `floor-${role}`,
  brokers: KAFKA_BROKERS.split(','),
  logLevel: kafkajs.logLevel.ERROR,
  // The bench's credentials, the way libs/kafka's kafkaSecurityFromEnv reads them.
  ssl: { ca: [read(KAFKA_TLS_CA_FILE)], rejectUnauthorized: true },
  sasl: { mechanism: 'scram-sha-512', username: KAFKA_SASL_USERNAME, password: read(KAFKA_SASL_PASSWORD_FILE) },
});

/** A placed order, as the floor answers it. */
interface FloorPlaced {
  id: number;
  petId: number;
  quantity: number;
  status: 'placed';
}

const SCHEMA = {
  orders: `
    create table if not exists floor_order (id bigserial primary key, pet_id bigint not null, quantity int not null,
      status text not null default 'placed', reason text, created_at timestamptz not null default now(),
      updated_at timestamptz not null default now());
    create table if not exists floor_outbox (id bigserial primary key, key text not null, value text not null);
    create table if not exists floor_processed (event_id uuid primary key);`,
  inventory: `
    create table if not exists floor_stock (pet_id bigint primary key, quantity int not null);
    create table if not exists floor_reservation (order_id bigint primary key, pet_id bigint not null, quantity int not null, state text not null,
      created_at timestamptz not null default now());
    create table if not exists floor_outbox (id bigserial primary key, key text not null, value text not null);
    create table if not exists floor_processed (event_id uuid primary key);`,
};

/** The outbox relay: woken after commits, publishes and deletes in one transaction, batches grow under load. */
function relay(producer: kafkajs.Producer): () => void {
  let running = false;
  let again = false;
  const client = new Client({ connectionString: DATABASE_URL });
  const connected = client.connect();
  async function drain() {
    await connected;
    do {
      again = false;
      await client.query('begin');
      const { rows } = await client.query<{ id: string; key: string; value: string }>(
        'delete from floor_outbox where id in (select id from floor_outbox order by id limit 500 for update skip locked) returning id, key, value',
      );
      if (rows.length > 0) {
        rows.sort((a, b) => Number(a.id) - Number(b.id));
        const topic = role === 'orders' ? ORDERS_TOPIC : STOCK_TOPIC;
        await producer.send({ topic, acks: -1, messages: rows.map((row) => ({ key: row.key, value: row.value })) });
      }
      await client.query('commit');
      if (rows.length === 500) again = true;
    } while (again);
  }
  return function wake() {
    if (running) {
      again = true;
      return;
    }
    running = true;
    drain()
      .catch((error: Error) => console.error(`[floor ${role}] relay: ${error.message}`))
      .finally(() => {
        running = false;
        if (again) wake();
      });
  };
}

/**
 * The batches a fetch hands over in the same turn, one per partition, as one set of events: the
 * services gather theirs the same way (libs/kafka's BatchGatherer). A failure fails them all, and
 * kafkajs hands them over again.
 */
function gatherer<Event>(handleAll: (events: Event[]) => Promise<void>): (events: Event[]) => Promise<void> {
  let waiting: Array<{ events: Event[]; resolve: () => void; reject: (error: unknown) => void }> = [];
  function flush() {
    const gathered = waiting;
    waiting = [];
    handleAll(gathered.flatMap((one) => one.events)).then(
      () => gathered.forEach((one) => one.resolve()),
      (error: unknown) => gathered.forEach((one) => one.reject(error)),
    );
  }
  return (events) =>
    new Promise((resolve, reject) => {
      if (waiting.push({ events, resolve, reject }) === 1) setImmediate(flush);
    });
}

/** The events of a fetch not seen before, in one transaction; then `committed`. */
async function consume<Event extends { eventId: string }>(topic: string, handle: (client: PoolClient, events: Event[]) => Promise<void>, committed = () => undefined as void) {
  const consumer = kafka.consumer({ groupId: `${NAMESPACE}floor-${role}`, maxWaitTimeInMs: 100 });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  const inOneTransaction = gatherer<Event>(async (events) => {
    const client = await pool.connect();
    try {
      await client.query('begin');
      const { rows } = await client.query<{ event_id: string }>(
        'insert into floor_processed (event_id) select unnest($1::uuid[]) on conflict do nothing returning event_id',
        [events.map((event) => event.eventId)],
      );
      const fresh = new Set(rows.map((row) => row.event_id));
      await handle(client, events.filter((event) => fresh.has(event.eventId)));
      await client.query('commit');
      committed();
    } catch (error) {
      await client.query('rollback');
      throw error;
    } finally {
      client.release();
    }
  });
  await consumer.run({
    partitionsConsumedConcurrently: 32,
    // Offsets committed once a second, as the services commit theirs, not after every partition's batch.
    autoCommit: false,
    autoCommitInterval: OFFSET_COMMIT_INTERVAL_MS,
    eachBatch: async ({ batch, commitOffsetsIfNecessary }) => {
      await inOneTransaction(batch.messages.map((message) => JSON.parse(String(message.value)) as Event));
      await commitOffsetsIfNecessary();
    },
  });
  return consumer;
}

async function ordersSide(producer: kafkajs.Producer) {
  const wake = relay(producer);
  await consume<FloorAnswer>(STOCK_TOPIC, async (client, answers) => {
    if (answers.length === 0) return;
    await client.query(
      `update floor_order o set status = a.status, reason = a.reason, updated_at = now()
         from unnest($1::bigint[], $2::text[], $3::text[]) as a(id, status, reason)
        where o.id = a.id and o.status = 'placed'`,
      [answers.map((a) => a.orderId), answers.map((a) => a.status), answers.map((a) => a.reason)],
    );
  });
  if (PLACE_SUBJECT) {
    // Behind the front: each placement arrives as a NATS request, as the stack's do from the gateway.
    const options = natsClientOptions(process.env);
    const nats = await connect(options);
    nats.subscribe(PLACE_SUBJECT, {
      // Its user may serve in the queue group of its own name only (libs/contracts natsServerConfig).
      queue: options.user,
      callback: (error, message) => {
        if (error) return;
        void place(message.string()).then(
          (order) => message.respond(JSON.stringify({ order })),
          (failure: Error) => message.respond(JSON.stringify({ error: failure.message })),
        );
      },
    });
    await nats.flush();
  }
  serve(place, () => process.send?.('ready'));

  /** The order and its outbox row in one statement. */
  async function place(body: string): Promise<FloorPlaced> {
    const { petId, quantity } = JSON.parse(body) as { petId: number; quantity: number };
    const { rows } = await pool.query<{ id: string }>(
      `with o as (insert into floor_order (pet_id, quantity) values ($1, $2) returning id, pet_id, quantity)
       , e as (insert into floor_outbox (key, value)
               select o.pet_id::text, json_build_object('eventId', $3::uuid, 'orderId', o.id, 'petId', o.pet_id, 'quantity', o.quantity)::text from o)
       select id from o`,
      [petId, quantity, randomUUID()],
    );
    wake();
    return { id: Number(rows[0].id), petId, quantity, status: 'placed' };
  }
}

/** POST bodies answered on PORT: a 201 with what `place` answers, or a 500 with the failure's message. */
function serve(place: (body: string) => Promise<FloorPlaced>, listening: () => void) {
  const server = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', async () => {
      try {
        const placed = await place(body);
        response.writeHead(201, { 'content-type': 'application/json' });
        response.end(JSON.stringify(placed));
      } catch (error) {
        response.writeHead(500);
        response.end(String(error));
      }
    });
  });
  // Replicas of a side share its port (SHARED_PORT=true), the kernel spreading connections over
  // them; off otherwise, so that a process left behind on the port fails the next one's start.
  // `reusePort` needs Node 22.12+ (the bench runs on Node 24: scripts/bench.mjs); Node 20's types lack it.
  const options = { port: Number(PORT), host: '127.0.0.1', reusePort: process.env.SHARED_PORT === 'true' };
  server.listen(options as net.ListenOptions, listening);
}

/** The gateway's hop and nothing else: each order's body sent on to the orders side over NATS, its answer sent back. */
async function front() {
  // As the hop's user, answered on the only inboxes it may read (libs/contracts natsInboxPrefix).
  const options = natsClientOptions(process.env);
  const request = natsRequests(await connect(options), options.inboxPrefix);
  const answers = JSONCodec<{ order?: FloorPlaced; error?: string }>();
  serve(async (body) => {
    const { order, error } = answers.decode(await request(PLACE_SUBJECT as string, Buffer.from(body)));
    if (!order) throw new Error(error);
    return order;
  }, () => process.send?.('ready'));
}

async function inventorySide(producer: kafkajs.Producer) {
  const wake = relay(producer);
  const consumer = consume<FloorOrder>(
    ORDERS_TOPIC,
    async (client, orders) => {
      if (orders.length === 0) return;
      const petIds = [...new Set(orders.map((order) => order.petId))].sort((a, b) => a - b);
      const { rows } = await client.query<{ pet_id: string; quantity: number }>(
        'select pet_id, quantity from floor_stock where pet_id = any($1) order by pet_id for update',
        [petIds],
      );
      const { stock, reservations, answers } = decide(new Map(rows.map((row) => [Number(row.pet_id), row.quantity])), orders, randomUUID);
      await client.query(
        `insert into floor_reservation (order_id, pet_id, quantity, state)
         select * from unnest($1::bigint[], $2::bigint[], $3::int[], $4::text[]) on conflict do nothing`,
        [0, 1, 2, 3].map((i) => reservations.map((r) => r[i])),
      );
      await client.query('update floor_stock s set quantity = u.quantity from unnest($1::bigint[], $2::int[]) as u(pet_id, quantity) where s.pet_id = u.pet_id', [
        [...stock.keys()],
        [...stock.values()],
      ]);
      await client.query('insert into floor_outbox (key, value) select * from unnest($1::text[], $2::text[])', [answers.map((a) => a[0]), answers.map((a) => a[1])]);
    },
    wake,
  );
  await consumer;
  process.send?.('ready');
}

async function main() {
  if (role === 'front') return front();
  await pool.query(SCHEMA[role]);
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1, createPartitioner: kafkajs.Partitioners.DefaultPartitioner });
  await producer.connect();
  if (role === 'orders') await ordersSide(producer);
  else await inventorySide(producer);
}

main().catch((error: Error) => {
  console.error(`[floor ${role}] ${error.stack}`);
  process.exit(1);
});
process.on('SIGTERM', () => process.exit(0));
