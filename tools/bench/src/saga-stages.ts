// Where placed → decided goes, per order, from what each pipeline records anyway (no tracing):
// the order's insert, OrderPlaced on Kafka (the relay's send time), the reservation's insert in
// inventory, its answer on Kafka, the decision's update. Database times are transaction starts.
// The stack and the saga floor record the same five moments, so their stages compare.
import { randomBytes } from 'node:crypto';
import * as pg from 'pg';
import { benchKafka, type Layout } from './bench-kafka';
import { percentile, round } from './figures';

export const STAGES = ['placed → OrderPlaced sent', '→ reservation', '→ stock event sent', '→ decided'] as const;
export type Stages = Record<string, { p50: number | null; p90: number | null }>;

/** One order's five moments (ms since the epoch), undefined where one was not seen. */
export interface OrderTimes {
  placed: number;
  orderPlacedSent?: number;
  reserved?: number;
  stockSent?: number;
  decided: number;
}

/** p50 and p90 of each stage over the orders whose every moment was seen. */
export function stageGaps(orders: OrderTimes[]): Stages {
  const gaps: number[][] = STAGES.map(() => []);
  for (const order of orders) {
    const times = [order.placed, order.orderPlacedSent, order.reserved, order.stockSent, order.decided];
    if (times.some((time) => time === undefined)) continue;
    gaps.forEach((list, i) => list.push((times[i + 1] as number) - (times[i] as number)));
  }
  return Object.fromEntries(
    STAGES.map((name, i) => {
      const list = gaps[i].sort((a, b) => a - b);
      return [name, { p50: round(percentile(list, 50)), p90: round(percentile(list, 90)) }];
    }),
  );
}

async function query<Row extends pg.QueryResultRow>(url: string, sql: string, since: Date): Promise<Row[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<Row>(sql, [since])).rows;
  } finally {
    await client.end();
  }
}

const epochMs = (column: string) => `extract(epoch from ${column}) * 1000 as ${column.replace(/^.*\./, '')}`;

/** Which of an order's events a message is: its OrderPlaced, or its stock answer. */
type SentKind = 'OrderPlaced' | 'stock';

/** Where one pipeline records an order's moments. */
export interface StageSources {
  /** The database and table of the orders (`created_at`, `updated_at`, `status`). */
  orders: { url: string; table: string };
  /** The database and table of the reservations (`order_id`, `created_at`). */
  reservations: { url: string; table: string };
  /** The topic of the order events and the topic of the stock answers (full names). */
  topics: { orderPlaced: string; stock: string };
  /** The order a message of `kind`'s topic (its value parsed) is about, or undefined when it is not that kind of event. */
  orderIdOf(kind: SentKind, value: unknown): unknown;
}

/** The stages of the orders decided since `since`, on the pipeline that records them in `sources`. */
export async function sagaStages(layout: Layout, sources: StageSources, since: Date): Promise<Stages> {
  const orders = await query<{ id: string; created_at: number; updated_at: number }>(
    sources.orders.url,
    `select id, ${epochMs('created_at')}, ${epochMs('updated_at')} from ${sources.orders.table} where created_at >= $1 and status <> 'placed'`,
    since,
  );
  const reservations = await query<{ order_id: string; created_at: number }>(
    sources.reservations.url,
    `select order_id, ${epochMs('created_at')} from ${sources.reservations.table} where created_at >= $1`,
    since,
  );
  const reserved = new Map(reservations.map((r) => [String(r.order_id), r.created_at]));
  const sent = await sentAt(layout, sources, new Date(since).getTime() - 1000);
  return stageGaps(
    orders.map((order) => {
      const id = String(order.id);
      return { placed: order.created_at, orderPlacedSent: sent.get(`OrderPlaced ${id}`), reserved: reserved.get(id), stockSent: sent.get(`stock ${id}`), decided: order.updated_at };
    }),
  );
}

/** The stack's moments: its orders and inventory databases, and the envelopes on its topics under `namespace`. */
export function stackStageSources(layout: Layout, namespace: string): StageSources {
  return {
    orders: { url: layout.envs.orders.DATABASE_URL, table: 'store_order' },
    reservations: { url: layout.envs.inventory.DATABASE_URL, table: 'reservation' },
    topics: { orderPlaced: `${namespace}orders.order.v1`, stock: `${namespace}inventory.stock.v1` },
    orderIdOf: (kind, value) => {
      const event = value as { type: string; payload: { orderId?: unknown } };
      return sentKind(event.type) === kind ? event.payload.orderId : undefined;
    },
  };
}

/** Which of an order's events a message is: OrderPlaced, its stock answer, or neither. */
export function sentKind(type: string): SentKind | null {
  if (type === 'OrderPlaced') return 'OrderPlaced';
  return /^Stock(Reserved|ReservationRejected)$/.test(type) ? 'stock' : null;
}

/** When the relays sent each order's events (the Kafka message timestamp, set by the producer), from `fromMs` on. */
async function sentAt(layout: Layout, sources: StageSources, fromMs: number): Promise<Map<string, number>> {
  const kafka = benchKafka(layout, 'bench-stages');
  const admin = kafka.admin();
  await admin.connect();
  const kinds = new Map<string, SentKind>([
    [sources.topics.orderPlaced, 'OrderPlaced'],
    [sources.topics.stock, 'stock'],
  ]);
  const ranges: { topic: string; partition: number; from: string; to: string }[] = [];
  for (const topic of kinds.keys()) {
    const ends = await admin.fetchTopicOffsets(topic);
    const starts = await admin.fetchTopicOffsetsByTimestamp(topic, fromMs);
    for (const { partition, high } of ends) ranges.push({ topic, partition, from: starts.find((s) => s.partition === partition)?.offset ?? high, to: high });
  }
  await admin.disconnect();
  const sent = new Map<string, number>();
  const consumer = kafka.consumer({ groupId: `bench-stages-${randomBytes(4).toString('hex')}` });
  await consumer.connect();
  await consumer.subscribe({ topics: [...new Set(ranges.map((r) => r.topic))] });
  let left = ranges.filter((r) => Number(r.from) < Number(r.to)).length;
  let finished = () => undefined as void;
  const done = new Promise<void>((resolve) => (finished = resolve));
  if (left === 0) finished();
  await consumer.run({
    eachBatch: async ({ batch }) => {
      const range = ranges.find((r) => r.topic === batch.topic && r.partition === batch.partition);
      if (!range) return;
      const kind = kinds.get(batch.topic) as SentKind;
      for (const message of batch.messages) {
        if (Number(message.offset) >= Number(range.to)) break;
        const orderId = sources.orderIdOf(kind, JSON.parse(String(message.value)));
        if (orderId !== undefined) sent.set(`${kind} ${orderId}`, Number(message.timestamp));
        if (Number(message.offset) === Number(range.to) - 1 && --left === 0) finished();
      }
    },
  });
  for (const range of ranges) consumer.seek({ topic: range.topic, partition: range.partition, offset: range.from });
  await done;
  await consumer.disconnect();
  return sent;
}
