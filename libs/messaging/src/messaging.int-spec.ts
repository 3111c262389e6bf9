import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { Inject, Injectable } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { MikroOrmModule } from '@mikro-orm/nestjs';
import { Migration } from '@mikro-orm/migrations';
import { MikroORM, type EntityManager } from '@mikro-orm/postgresql';
import {
  OrderCancelled,
  OrderPlaced,
  StockReserved,
  Topics,
  causedBy,
  deadLetterTopic,
  serializeEnvelope,
  type EnvelopeOf,
  type EventEnvelope,
} from '@petstore/contracts';
import { databaseOptions, executePrepared, prepareTestDatabase } from '@petstore/database';
import {
  DEAD_LETTER_HEADERS,
  LogLevel,
  createIdempotentProducer,
  createKafkaClient,
  namespaced,
} from '@petstore/kafka';
import { EventProbe, freePort, testDatabaseUrl, testKafkaBrokers, uniqueNamespace, type ProbedMessage } from '@petstore/testing';
import type { Producer } from 'kafkajs';
import { Client } from 'pg';
import { register } from 'prom-client';
import {
  EventHandler,
  KafkaReadinessCheck,
  MessagingKafka,
  MessagingModule,
  MessagingService,
  OutboxRelay,
  OutboxWriter,
  TransactionHooks,
  defaultRelaySettings,
  messagingMigrations,
  type EventHandlerOf,
  type MessagingOptions,
  OUTBOX_HEADERS,
} from '.';
import { OutboxClaims } from './outbox-claims';

jest.setTimeout(60_000);

/** A node of PostgreSQL's EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON). */
interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Actual Loops': number;
  'Shared Hit Blocks': number;
  'Shared Read Blocks': number;
  Plans?: PlanNode[];
}

/** Every node of a plan, CTEs included. */
function planNodes(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(planNodes)];
}

/** The outbox backlog as a scrape reads it (a scrape within a second of the last reads the same answer). */
async function outboxBacklogGauge(): Promise<number | undefined> {
  await new Promise((resolve) => setTimeout(resolve, 1100));
  const gauge = register.getSingleMetric('petstore_outbox_backlog');
  return (await gauge?.get())?.values[0]?.value;
}

const SERVICE = 'messaging-spec';
const namespace = uniqueNamespace();
const brokers = testKafkaBrokers();

class MigrationSpecEffect extends Migration {
  override async up(): Promise<void> {
    // No unique constraint on purpose: a handler running twice would leave two rows.
    this.addSql('create table spec_effect (id serial primary key, event_id uuid not null, replica text not null)');
  }
}

const ormOptions = databaseOptions({
  url: testDatabaseUrl('messaging'),
  entities: [],
  migrations: [...messagingMigrations, { name: 'MigrationSpecEffect', class: MigrationSpecEffect }],
  poolMax: 5,
});

const REPLICA = Symbol('REPLICA');
const quiet = () => undefined;

/** Records its effects and answers through the outbox, like inventory answering orders. */
@EventHandler(OrderPlaced)
@Injectable()
class OrderPlacedSpecHandler implements EventHandlerOf<typeof OrderPlaced> {
  constructor(
    private readonly outbox: OutboxWriter,
    @Inject(REPLICA) private readonly replica: string,
  ) {}

  async handleBatch(events: EnvelopeOf<typeof OrderPlaced>[], em: EntityManager): Promise<void> {
    if (events.some((event) => event.payload.quantity === 999)) throw new Error('the stock system is on fire');
    await executePrepared(em, 'insert into spec_effect (event_id, replica) select unnest(?::uuid[]), ?', [
      events.map((event) => event.eventId),
      this.replica,
    ]);
    for (const event of events) {
      const { orderId, petId, quantity } = event.payload;
      this.outbox.add(em, StockReserved.create({ orderId, petId, quantity, remaining: 0 }, causedBy(event, SERVICE)));
    }
  }
}

const relayOptions: MessagingOptions = { producer: SERVICE, kafka: { brokers } };

async function startService(replica: string, brokerList = brokers, warn: (message: unknown) => void = quiet): Promise<TestingModule> {
  const app = await Test.createTestingModule({
    imports: [
      MikroOrmModule.forRoot(ormOptions),
      MessagingModule.forRoot({
        producer: SERVICE,
        kafka: { brokers: brokerList, namespace, logLevel: LogLevel.NOTHING },
        handlers: [OrderPlacedSpecHandler],
        consumer: { maxAttempts: 3, backoff: { initialMs: 20, maxMs: 80 } },
      }),
    ],
    providers: [OrderPlacedSpecHandler, { provide: REPLICA, useValue: replica }],
  })
    .setLogger({ log: quiet, error: quiet, warn })
    .compile();
  await app.init();
  return app;
}

let nextOrderId = 1;
function orderPlaced(petId: number, quantity = 1): EnvelopeOf<typeof OrderPlaced> {
  return OrderPlaced.create({ orderId: nextOrderId++, petId, quantity }, { producer: 'orders', correlationId: 'spec' });
}

const answerTo = (cause: EventEnvelope) => (event: EventEnvelope) =>
  event.type === StockReserved.type && event.causationId === cause.eventId;

/** Opens `port` and forwards each connection to `target` (`host:port`): a broker that becomes reachable at that address. */
async function forwardTo(port: number, target: string): Promise<{ close: () => void }> {
  const [host, targetPort] = target.split(':');
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(Number(targetPort), host);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => undefined).on('close', () => sockets.delete(socket));
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    close: () => {
      server.close();
      for (const socket of sockets) socket.destroy();
    },
  };
}

describe('messaging (outbox relay and idempotent consumer) against PostgreSQL and Kafka', () => {
  let probe: EventProbe;

  beforeAll(async () => {
    await prepareTestDatabase(ormOptions);
    probe = await EventProbe.start({
      namespace,
      brokers,
      topics: [Topics.ordersOrder, Topics.inventoryStock, deadLetterTopic(SERVICE)],
    });
  });

  afterAll(async () => {
    await probe?.stop();
  });

  describe('the outbox relay on its own', () => {
    let orm: MikroORM;
    let hooks: TransactionHooks;
    const writerFor = (relay: OutboxRelay) => new OutboxWriter(hooks, relay);

    beforeAll(async () => {
      orm = await MikroORM.init(ormOptions);
      hooks = new TransactionHooks(orm);
      hooks.onModuleInit();
    });

    afterAll(async () => {
      await orm?.close(true);
    });

    it('keeps the rows, records the failure, and a relay that reaches the broker publishes them in order', async () => {
      const settings = { ...defaultRelaySettings, backoff: { initialMs: 100, maxMs: 200 }, flushTimeoutMs: 500 };
      const unreachable = new OutboxRelay(
        orm,
        new MessagingKafka({ clientId: 'dead', brokers: ['127.0.0.1:9'], namespace, logLevel: LogLevel.NOTHING }),
        settings,
        relayOptions,
      );
      const writer = writerFor(unreachable);
      unreachable.start();

      const events = [orderPlaced(500), orderPlaced(500), orderPlaced(500)];
      const failed = once(unreachable.events, 'failed');
      await orm.em.fork().transactional(async (em) => {
        for (const event of events) writer.add(em, event);
      });
      const [failure] = await failed;
      expect(failure.count).toBe(3);
      // Rows whose publish failed are backlog.
      expect(await outboxBacklogGauge()).toBe(3);
      await unreachable.stop();

      const stuck = await orm.em
        .fork()
        .execute('select attempts, last_error, publish_seq from outbox_event where key = ? order by seq', ['500']);
      expect(stuck).toHaveLength(3);
      for (const row of stuck) {
        expect(row.attempts).toBeGreaterThanOrEqual(1);
        expect(row.last_error).toEqual(expect.any(String));
      }
      // Numbered before the first attempt: every copy Kafka may get carries the same number, in seq order.
      const numbers = stuck.map((row) => Number(row.publish_seq));
      expect(numbers).toEqual([...numbers].sort((a, b) => a - b));

      const reachable = new OutboxRelay(
        orm,
        new MessagingKafka({ clientId: 'alive', brokers, namespace, logLevel: LogLevel.NOTHING }),
        settings,
        relayOptions,
      );
      const published = once(reachable.events, 'published');
      reachable.start();
      try {
        await probe.waitFor((event) => event.eventId === events[2].eventId);
        await published;
        // Published rows wait in the table for the next claim to delete them, and are not backlog.
        const waiting = await orm.em.fork().execute('select 1 from outbox_event where key = ?', ['500']);
        expect(waiting).toHaveLength(3);
        expect(await outboxBacklogGauge()).toBe(0);
      } finally {
        await reachable.stop();
      }
      const seen = probe.messages().filter((m) => events.some((e) => e.eventId === m.envelope?.eventId));
      expect(seen.map((m) => m.envelope?.eventId)).toEqual(events.map((event) => event.eventId));
      expect(seen.map((m) => Number(m.headers[OUTBOX_HEADERS.seq]))).toEqual(numbers);
      expect(new Set(seen.map((m) => m.headers[OUTBOX_HEADERS.source])).size).toBe(1);
      // Published rows leave the outbox: it holds only what Kafka does not have yet.
      expect(await orm.em.fork().execute('select 1 from outbox_event where key = ?', ['500'])).toEqual([]);
    });

    it('is woken by the commit, also of a nested transaction, not by its sweep', async () => {
      const relay = new OutboxRelay(
        orm,
        new MessagingKafka({ clientId: 'woken', brokers, namespace, logLevel: LogLevel.NOTHING }),
        { ...defaultRelaySettings, sweepIntervalMs: 10 * 60 * 1000 },
        relayOptions,
      );
      const writer = writerFor(relay);
      relay.start();
      try {
        const first = orderPlaced(501);
        await orm.em.fork().transactional(async (em) => {
          writer.add(em, first);
        });
        await probe.waitFor((event) => event.eventId === first.eventId, 5000);

        // The relay is idle now: only the outer transaction's commit can wake it.
        const inner = orderPlaced(501);
        await orm.em.fork().transactional(async (em) => {
          await em.transactional(async (nested) => {
            writer.add(nested, inner);
          });
        });
        await probe.waitFor((event) => event.eventId === inner.eventId, 5000);
        expect(() => writer.add(orm.em.fork(), orderPlaced(501))).toThrow(
          'OutboxWriter.add needs the EntityManager of an em.transactional(...) or inStatementTransaction(...) callback',
        );
      } finally {
        await relay.stop();
      }
    });

    it('empties its table once enough went through, never while a writer holds it, and loses nothing', async () => {
      const relay = new OutboxRelay(
        orm,
        new MessagingKafka({ clientId: 'emptying', brokers, namespace, logLevel: LogLevel.NOTHING }),
        { ...defaultRelaySettings, emptyOutboxAfterRows: 5 },
        relayOptions,
      );
      const writer = writerFor(relay);
      const outboxBytes = async () =>
        Number((await orm.em.fork().execute(`select pg_relation_size('outbox_event') as bytes`))[0].bytes);
      relay.start();
      try {
        // A writer in the middle of its transaction holds the table: the relay publishes around it and deletes row by row.
        const held = orderPlaced(502);
        let release!: () => void;
        const releasing = new Promise<void>((resolve) => (release = resolve));
        let inserted!: () => void;
        const insertedHeld = new Promise<void>((resolve) => (inserted = resolve));
        const holder = orm.em.fork().transactional(async (em) => {
          await em.execute(
            `insert into outbox_event (event_id, topic, key, type, envelope) values (?, ?, ?, ?, ?)`,
            [held.eventId, Topics.ordersOrder, held.key, held.type, JSON.stringify(held)],
          );
          inserted();
          await releasing;
        });
        await insertedHeld;
        const first = Array.from({ length: 6 }, () => orderPlaced(502));
        // Kafka's consumers may see a batch before the relay has dealt with its rows: wait for the relay itself.
        const firstPublished = once(relay.events, 'published');
        await orm.em.fork().transactional(async (em) => {
          for (const event of first) writer.add(em, event);
        });
        await firstPublished;
        await probe.waitFor((event) => event.eventId === first[5].eventId, 5000);
        expect(await outboxBytes()).toBeGreaterThan(0);

        release();
        await holder;
        const heldPublished = once(relay.events, 'published');
        relay.wake();
        await heldPublished;
        // Nothing else was waiting after that batch: the table gave its pages back.
        expect(await outboxBytes()).toBe(0);

        const next = orderPlaced(502);
        await orm.em.fork().transactional(async (em) => {
          writer.add(em, next);
        });
        await probe.waitFor((event) => event.eventId === next.eventId, 5000);
        const published = probe.messages().filter((m) => m.envelope?.key === '502').map((m) => m.envelope?.eventId);
        expect(published).toEqual([...first, held, next].map((event) => event.eventId));
      } finally {
        await relay.stop();
      }
    });

    it('relays a stream of commits in batches of at most two: each reaches Kafka once, in order, and leaves the outbox', async () => {
      // The table is never emptied at once here: each published row must be deleted by a later claim or by the stop.
      const relay = new OutboxRelay(
        orm,
        new MessagingKafka({ clientId: 'stream', brokers, namespace, logLevel: LogLevel.NOTHING }),
        { ...defaultRelaySettings, batchSize: 2, emptyOutboxAfterRows: Number.MAX_SAFE_INTEGER },
        relayOptions,
      );
      const writer = writerFor(relay);
      const events = Array.from({ length: 40 }, () => orderPlaced(503));
      relay.start();
      try {
        for (const event of events) {
          await orm.em.fork().transactional(async (em) => {
            writer.add(em, event);
          });
        }
        await probe.waitFor((event) => event.eventId === events[events.length - 1].eventId, 10_000);
      } finally {
        await relay.stop();
      }
      const seen = probe.messages().filter((m) => m.envelope?.key === '503');
      expect(seen.map((m) => m.envelope?.eventId)).toEqual(events.map((event) => event.eventId));
      const numbers = seen.map((m) => Number(m.headers[OUTBOX_HEADERS.seq]));
      expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
      expect(new Set(numbers).size).toBe(events.length);
      // Every published row was deleted, by a later claim or by the stop.
      expect(await orm.em.fork().execute('select seq from outbox_event where key = ?', ['503'])).toEqual([]);
    });

    it('is relayed by one replica at a time; another takes over when its session ends', async () => {
      const settings = {
        ...defaultRelaySettings,
        sweepIntervalMs: 10 * 60 * 1000,
        backoff: { initialMs: 50, maxMs: 100 },
      };
      const relayOf = (name: string) =>
        new OutboxRelay(
          orm,
          new MessagingKafka({ clientId: name, brokers, namespace, logLevel: LogLevel.NOTHING }),
          settings,
          relayOptions,
        );
      const first = relayOf('first');
      const second = relayOf('second');
      const secondWriter = writerFor(second);
      const firstLeads = once(first.events, 'leading');
      first.start();
      await firstLeads;
      second.start();
      try {
        // Written through the replica that does not relay: the leader hears of it and publishes it.
        const viaStandby = orderPlaced(502);
        await orm.em.fork().transactional(async (em) => secondWriter.add(em, viaStandby));
        await probe.waitFor((event) => event.eventId === viaStandby.eventId, 5000);
        expect(first.leading).toBe(true);
        expect(second.leading).toBe(false);

        const secondLeads = once(second.events, 'leading');
        await first.stop();
        await secondLeads;
        const afterTakeover = orderPlaced(502);
        await orm.em.fork().transactional(async (em) => secondWriter.add(em, afterTakeover));
        await probe.waitFor((event) => event.eventId === afterTakeover.eventId, 5000);
      } finally {
        await first.stop();
        await second.stop();
      }
    });

    it('deletes the batch published before through the primary key, however large the outbox grew after the claim was planned', async () => {
      const session = new Client({ connectionString: orm.config.getClientUrl() });
      await session.connect();
      const claims = new OutboxClaims({ batchSize: 500, emptyOutboxAfterRows: Number.MAX_SAFE_INTEGER }, () => undefined);
      const writeOne = () => {
        const event = orderPlaced(504);
        return orm.em
          .fork()
          .execute('insert into outbox_event (event_id, topic, key, type, envelope) values (?, ?, ?, ?, ?)', [
            event.eventId,
            Topics.ordersOrder,
            event.key,
            event.type,
            JSON.stringify(event),
          ]);
      };
      try {
        // Just emptied, as the relay leaves it every emptyOutboxAfterRows, and claimed and deleted one
        // by one: the claim's generic plan is made on a table of no pages. A session moves to the
        // generic plan once it looks no dearer than the custom plans made so far, which it does on
        // a relay's session under load (seen in its CPU profile); here it is forced from the start.
        await orm.em.fork().execute('truncate outbox_event');
        await session.query('set plan_cache_mode = force_generic_plan');
        for (let i = 0; i < 8; i++) {
          await writeOne();
          await claims.published(session, await claims.next(session));
        }
        // Deleted rows keep their pages until a vacuum, or until the relay empties the table.
        await orm.em.fork().execute(
          `insert into outbox_event (event_id, topic, key, type, envelope, publish_seq)
             select gen_random_uuid(), 'filler', 'filler', 'filler', '{}'::jsonb, -n from generate_series(1, 20000) n`,
        );
        await orm.em.fork().execute(`delete from outbox_event where topic = 'filler'`);
        await writeOne();

        // The next claim as the relay runs it (the same prepared statement, the batch before to delete), undone after.
        const claim = `execute outbox_claim(500, '{${claims.awaitingDelete.join(',')}}'::bigint[], false)`;
        await session.query('begin');
        const { rows } = await session.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
          `explain (analyze, buffers, format json) ${claim}`,
        );
        await session.query('rollback');
        const scans = planNodes(rows[0]['QUERY PLAN'][0].Plan).filter(
          (node) => node['Relation Name'] === 'outbox_event' && node['Node Type'].endsWith('Scan') && node['Actual Loops'] > 0,
        );
        const pagesRead = scans.reduce((sum, node) => sum + node['Shared Hit Blocks'] + node['Shared Read Blocks'], 0);
        expect(scans.map((node) => node['Node Type'])).not.toContain('Seq Scan');
        // The table holds some 280 pages; the claim reads the pages of its two rows and the indexes' few.
        expect(pagesRead).toBeLessThan(30);
      } finally {
        await session.end();
        // Nothing of this test is for the relays of the tests after it.
        await orm.em.fork().execute(`delete from outbox_event where key = '504'`);
      }
    });
  });

  describe('MessagingModule', () => {
    let app: TestingModule;
    let orm: MikroORM;
    let outbox: OutboxWriter;
    let rawProducer: Producer;
    const ordersTopic = namespaced(namespace, Topics.ordersOrder);

    async function commit(...events: EventEnvelope[]): Promise<void> {
      await orm.em.fork().transactional(async (em) => {
        for (const event of events) outbox.add(em, event);
      });
    }

    async function effects(eventId: string): Promise<{ replica: string }[]> {
      return orm.em.fork().execute('select replica from spec_effect where event_id = ?', [eventId]);
    }

    /** Messages as the relay of outbox `source` writes them: with its id and a publication number. */
    const numberedBy = (source: string) => (event: EventEnvelope, seq: number) => ({
      key: event.key,
      value: serializeEnvelope(event),
      headers: { [OUTBOX_HEADERS.source]: source, [OUTBOX_HEADERS.seq]: String(seq) },
    });

    /** Refused messages counted so far on the orders topic for `reason`. */
    async function refusedCount(reason: string): Promise<number> {
      const values = (await register.getSingleMetric('petstore_consumer_refused_total')?.get())?.values ?? [];
      return values.find((one) => one.labels.topic === ordersTopic && one.labels.reason === reason)?.value ?? 0;
    }

    const deadLetterOf = (event: EventEnvelope) => (m: ProbedMessage) =>
      m.topic === deadLetterTopic(SERVICE) && m.envelope?.eventId === event.eventId;

    beforeAll(async () => {
      app = await startService('a');
      orm = app.get(MikroORM);
      outbox = app.get(OutboxWriter);
      await app.get(MessagingService).whenConsumerJoined();
      rawProducer = createIdempotentProducer(
        createKafkaClient({ clientId: 'spec-raw', brokers, logLevel: LogLevel.NOTHING }),
      );
      await rawProducer.connect();
    });

    afterAll(async () => {
      await rawProducer?.disconnect();
      await app?.close();
    });

    it('publishes what a committed transaction wrote, promptly, and the consumer handles it', async () => {
      const toTopic: number[] = [];
      const roundTrip: number[] = [];
      for (let i = 0; i < 20; i++) {
        const event = orderPlaced(600 + i);
        const committed = Date.now();
        await commit(event);
        await probe.waitFor((e) => e.eventId === event.eventId);
        toTopic.push(Date.now() - committed);
        const answer = await probe.waitFor(answerTo(event));
        roundTrip.push(Date.now() - committed);
        expect(answer).toMatchObject({ producer: SERVICE, correlationId: 'spec', key: String(600 + i) });
      }
      const stats = (values: number[]) => {
        const sorted = [...values].sort((a, b) => a - b);
        return `median ${sorted[Math.floor(sorted.length / 2)]} ms, max ${sorted[sorted.length - 1]} ms`;
      };
      // Reported for the record; the bound is generous so a busy machine does not fail the suite.
      process.stdout.write(
        `commit → on the topic: ${stats(toTopic)}; commit → handled and answered: ${stats(roundTrip)}\n`,
      );
      expect(Math.max(...roundTrip)).toBeLessThan(5000);
    });

    it('publishes nothing from a rolled-back transaction', async () => {
      const doomed = orderPlaced(700);
      await expect(
        orm.em.fork().transactional(async (em) => {
          outbox.add(em, doomed);
          await em.flush();
          throw new Error('changed my mind');
        }),
      ).rejects.toThrow('changed my mind');
      const after = orderPlaced(700);
      await commit(after);

      // Same key, same partition: had the first been published, it would have arrived first.
      await probe.waitFor((event) => event.eventId === after.eventId);
      expect(probe.all().some((event) => event.eventId === doomed.eventId)).toBe(false);
      const rows = await orm.em.fork().execute('select 1 from outbox_event where event_id = ?', [doomed.eventId]);
      expect(rows).toEqual([]);
    });

    it('handles an event delivered twice only once', async () => {
      const event = orderPlaced(701);
      const marker = orderPlaced(701);
      await rawProducer.send({
        topic: ordersTopic,
        messages: [event, event, marker].map((e) => ({ key: e.key, value: serializeEnvelope(e) })),
      });

      await probe.waitFor(answerTo(marker));
      expect(await effects(event.eventId)).toHaveLength(1);
      expect(probe.all().filter(answerTo(event))).toHaveLength(1);
    });

    it('applies a relayed event once however often its numbered copy comes, and keeps one position row per partition', async () => {
      const source = '00000000-0000-4000-8000-000000000001';
      const numbered = numberedBy(source);
      const events = [orderPlaced(704), orderPlaced(704), orderPlaced(704)];
      // The relay re-sent 1..2 after 3 (a crash before it removed them), then sent 4.
      const marker = orderPlaced(704);
      await rawProducer.send({
        topic: ordersTopic,
        messages: [numbered(events[0], 1), numbered(events[1], 2), numbered(events[0], 1), numbered(events[2], 3)],
      });
      await rawProducer.send({
        topic: ordersTopic,
        messages: [numbered(events[0], 1), numbered(events[1], 2), numbered(marker, 4)],
      });

      await probe.waitFor(answerTo(marker));
      for (const event of events) expect(await effects(event.eventId)).toHaveLength(1);
      const positions = await orm.em
        .fork()
        .execute('select last_seq from consumer_position where source = ?', [source]);
      expect(positions).toEqual([{ last_seq: '4' }]);
      // Numbered events leave no row per event behind.
      expect(
        await orm.em.fork().execute(
          `select 1 from processed_event where event_id in (?, ?, ?, ?)`,
          [...events, marker].map((e) => e.eventId),
        ),
      ).toEqual([]);
    });

    it('applies the partitions of one fetch together, each against its own position', async () => {
      const source = '00000000-0000-4000-8000-000000000009';
      const numbered = numberedBy(source);
      // One outbox numbers across partitions: 1 on partition 0, 2 on 1, 3 on 2, sent in one request.
      const events = [orderPlaced(709), orderPlaced(709), orderPlaced(709)];
      const onPartition = (partition: number, event: EventEnvelope, seq: number) => ({ ...numbered(event, seq), partition });
      await rawProducer.send({ topic: ordersTopic, messages: events.map((event, index) => onPartition(index, event, index + 1)) });
      // Every copy comes again, before the next numbers, on every partition.
      const markers = [orderPlaced(709), orderPlaced(709), orderPlaced(709)];
      await rawProducer.send({
        topic: ordersTopic,
        messages: [
          ...events.map((event, index) => onPartition(index, event, index + 1)),
          ...markers.map((marker, index) => onPartition(index, marker, index + 4)),
        ],
      });

      for (const marker of markers) await probe.waitFor(answerTo(marker));
      for (const event of [...events, ...markers]) expect(await effects(event.eventId)).toHaveLength(1);
      const positions = await orm.em
        .fork()
        .execute('select partition, last_seq from consumer_position where source = ? order by partition', [source]);
      expect(positions).toEqual([
        { partition: 0, last_seq: '4' },
        { partition: 1, last_seq: '5' },
        { partition: 2, last_seq: '6' },
      ]);
    });

    it('treats an outbox source that is no UUID as absent: the event is applied once, by its id, with the rest of its batch', async () => {
      const event = orderPlaced(706);
      const next = orderPlaced(706);
      const malformed = numberedBy('-'.repeat(36));
      await rawProducer.send({ topic: ordersTopic, messages: [malformed(event, 7), malformed(event, 7), numberedBy('00000000-0000-4000-8000-000000000006')(next, 1)] });

      await probe.waitFor(answerTo(next));
      expect(await effects(event.eventId)).toHaveLength(1);
      expect(await effects(next.eventId)).toHaveLength(1);
    });

    it('dead-letters malformed messages at once and carries on with the partition', async () => {
      const invalidPayload = { ...orderPlaced(702), payload: { orderId: 1, petId: 702, quantity: 0 } };
      const notForThisService = OrderCancelled.create(
        { orderId: 9, petId: 702, quantity: 1, previousStatus: 'placed' },
        { producer: 'orders' },
      );
      const next = orderPlaced(702);
      await rawProducer.send({
        topic: ordersTopic,
        messages: [
          { key: '702', value: '{not json' },
          { key: '702', value: JSON.stringify(invalidPayload) },
          { key: '702', value: serializeEnvelope(notForThisService) },
          { key: '702', value: serializeEnvelope(next) },
        ],
      });

      await probe.waitFor(answerTo(next));
      const deadLettered = (m: ProbedMessage) => m.topic === deadLetterTopic(SERVICE);
      const garbage = await probe.waitForMessage((m) => deadLettered(m) && m.value === '{not json');
      expect(garbage.key).toBe('702');
      expect(garbage.headers).toMatchObject({
        [DEAD_LETTER_HEADERS.topic]: ordersTopic,
        [DEAD_LETTER_HEADERS.attempts]: '1',
        [DEAD_LETTER_HEADERS.errorName]: 'NonRetriableError',
        [DEAD_LETTER_HEADERS.error]: 'Event is not valid JSON',
      });
      const invalid = await probe.waitForMessage(
        (m) => deadLettered(m) && m.envelope?.eventId === invalidPayload.eventId,
      );
      expect(invalid.headers[DEAD_LETTER_HEADERS.error]).toBe('Invalid OrderPlaced payload: /quantity must be >= 1');
      // An event type the service has no handler for is skipped, not dead-lettered.
      const skipped = (m: ProbedMessage) => deadLettered(m) && m.envelope?.eventId === notForThisService.eventId;
      expect(probe.messages().some(skipped)).toBe(false);
    });

    it('refuses an event whose producer does not own its topic, and applies the rest of its batch', async () => {
      const refusedBefore = await refusedCount('foreign-producer');
      // Written on orders' topic by another service (a stolen credential, a tool run with the wrong one).
      const forged = OrderPlaced.create({ orderId: nextOrderId++, petId: 705, quantity: 1 }, { producer: 'inventory' });
      const next = orderPlaced(705);
      await rawProducer.send({
        topic: ordersTopic,
        messages: [forged, next].map((e) => ({ key: e.key, value: serializeEnvelope(e) })),
      });

      await probe.waitFor(answerTo(next));
      const dead = await probe.waitForMessage(deadLetterOf(forged));
      expect(dead.headers).toMatchObject({
        [DEAD_LETTER_HEADERS.topic]: ordersTopic,
        [DEAD_LETTER_HEADERS.attempts]: '1',
        [DEAD_LETTER_HEADERS.errorName]: 'NonRetriableError',
        [DEAD_LETTER_HEADERS.error]: `foreign-producer: producer 'inventory' does not own ${Topics.ordersOrder} (its owner is orders)`,
      });
      expect(await effects(forged.eventId)).toEqual([]);
      expect(probe.all().some(answerTo(forged))).toBe(false);
      expect(await effects(next.eventId)).toHaveLength(1);
      expect(await refusedCount('foreign-producer')).toBe(refusedBefore + 1);
    });

    it('refuses a publication number far beyond its outbox, and the events after it are still applied', async () => {
      const source = '00000000-0000-4000-8000-000000000002';
      const numbered = numberedBy(source);
      const refusedBefore = await refusedCount('implausible-publication-number');
      const before = [orderPlaced(706), orderPlaced(706)];
      await rawProducer.send({ topic: ordersTopic, messages: [numbered(before[0], 1), numbered(before[1], 2)] });
      await probe.waitFor(answerTo(before[1]));

      // A copy of the last event under a fresh id, numbered far ahead of anything the outbox published.
      const forged = { ...before[1], eventId: randomUUID() };
      const after = [orderPlaced(706), orderPlaced(706), orderPlaced(706)];
      await rawProducer.send({
        topic: ordersTopic,
        messages: [numbered(forged, 900_000_000_000_000), numbered(after[0], 3), numbered(after[1], 4)],
      });
      // Alone in its fetch, or with the others: refused either way.
      await rawProducer.send({ topic: ordersTopic, messages: [numbered(after[2], 5)] });

      await probe.waitFor(answerTo(after[2]));
      for (const event of [...before, ...after]) expect(await effects(event.eventId)).toHaveLength(1);
      expect(await effects(forged.eventId)).toEqual([]);
      const dead = await probe.waitForMessage(deadLetterOf(forged));
      expect(dead.headers[DEAD_LETTER_HEADERS.error]).toMatch(
        new RegExp(`^implausible-publication-number: publication number 900000000000000 of outbox ${source} is more than 1000000 beyond`),
      );
      const positions = await orm.em.fork().execute('select last_seq from consumer_position where source = ?', [source]);
      expect(positions).toEqual([{ last_seq: '5' }]);
      expect(await refusedCount('implausible-publication-number')).toBe(refusedBefore + 1);

      // A redelivery of the forged message is refused again, and changes nothing either.
      await rawProducer.send({ topic: ordersTopic, messages: [numbered(forged, 900_000_000_000_000)] });
      const marker = orderPlaced(706);
      await rawProducer.send({ topic: ordersTopic, messages: [numbered(marker, 6)] });
      await probe.waitFor(answerTo(marker));
      expect(await effects(forged.eventId)).toEqual([]);
      expect(await refusedCount('implausible-publication-number')).toBe(refusedBefore + 2);
    });

    it('believes the first numbers of an outbox it has not seen, wherever they start, and keeps up with its lead', async () => {
      // A consumer that starts in the middle of a topic, or an outbox whose numbers are far along.
      const source = '00000000-0000-4000-8000-000000000003';
      const numbered = numberedBy(source);
      const events = [orderPlaced(707), orderPlaced(707), orderPlaced(707)];
      const start = 5_000_000_000;
      await rawProducer.send({
        topic: ordersTopic,
        // Numbers along a partition have gaps: the outbox published the ones between elsewhere.
        messages: [numbered(events[0], start), numbered(events[1], start + 900_000)],
      });
      await probe.waitFor(answerTo(events[1]));
      await rawProducer.send({ topic: ordersTopic, messages: [numbered(events[2], start + 1_800_000)] });

      await probe.waitFor(answerTo(events[2]));
      for (const event of events) expect(await effects(event.eventId)).toHaveLength(1);
    });

    it('dead-letters an event whose handler keeps failing after the last attempt, and carries on', async () => {
      const failing = orderPlaced(703, 999);
      const next = orderPlaced(703);
      await commit(failing, next);

      await probe.waitFor(answerTo(next));
      const dead = await probe.waitForMessage(
        (m) => m.topic === deadLetterTopic(SERVICE) && m.envelope?.eventId === failing.eventId,
      );
      expect(dead.headers).toMatchObject({
        [DEAD_LETTER_HEADERS.attempts]: '3',
        [DEAD_LETTER_HEADERS.error]: 'the stock system is on fire',
        [DEAD_LETTER_HEADERS.group]: namespaced(namespace, SERVICE),
      });
      expect(await effects(failing.eventId)).toEqual([]);
    });

    it('shares the work between two replicas in one group, each event handled once', async () => {
      const second = await startService('b');
      try {
        await second.get(MessagingService).whenConsumerJoined();
        const events = Array.from({ length: 30 }, (_, i) => orderPlaced(800 + i));
        await commit(...events.slice(0, 15));
        // Both replicas write to the shared outbox; the one that leads relays it.
        const secondOrm: MikroORM = second.get(MikroORM);
        await secondOrm.em.fork().transactional(async (em) => {
          for (const event of events.slice(15)) second.get(OutboxWriter).add(em, event);
        });

        for (const event of events) await probe.waitFor(answerTo(event));
        const rows = await orm.em.fork().execute<{ event_id: string; replica: string }[]>(
          `select event_id, replica from spec_effect where event_id in (${events.map(() => '?').join(', ')})`,
          events.map((event) => event.eventId),
        );
        expect(rows.map((row) => row.event_id).sort()).toEqual(events.map((event) => event.eventId).sort());
        expect(new Set(rows.map((row) => row.replica))).toEqual(new Set(['a', 'b']));
      } finally {
        await second.close();
      }
    });

    it('reports the broker as ready', async () => {
      await expect(app.get(KafkaReadinessCheck).check()).resolves.toBeUndefined();
    });
  });

  it('starts without the broker, keeps trying, and relays and consumes once the broker is reachable', async () => {
    const port = await freePort(); // nothing listens there until the forwarder opens it
    let failedToStart!: () => void;
    const triedAndFailed = new Promise<void>((resolve) => (failedToStart = resolve));
    const app = await startService('late', [`127.0.0.1:${port}`], (message) => String(message).includes('could not start') && failedToStart());
    let forwarder: { close: () => void } | undefined;
    try {
      const event = orderPlaced(901);
      const orm: MikroORM = app.get(MikroORM);
      await orm.em.fork().transactional(async (em) => app.get(OutboxWriter).add(em, event));
      await triedAndFailed;
      await expect(app.get(KafkaReadinessCheck).check()).rejects.toThrow();

      forwarder = await forwardTo(port, brokers[0]);
      await app.get(MessagingService).whenStarted();
      // Written before Kafka was reachable: relayed, then consumed and answered by the same service.
      await probe.waitFor(answerTo(event));
      await expect(app.get(KafkaReadinessCheck).check()).resolves.toBeUndefined();
    } finally {
      await app.close();
      forwarder?.close();
    }
  });

  it('tries a broker that is down once per start attempt, so the start does not wait on it', async () => {
    // Accepts each connection and drops it, as a broker going down does: each try is one connection.
    let connections = 0;
    const broker = createServer((socket) => {
      connections += 1;
      socket.destroy();
    });
    await new Promise<void>((resolve) => broker.listen(0, '127.0.0.1', resolve));
    const { port } = broker.address() as { port: number };
    const app = await startService('dropped', [`127.0.0.1:${port}`]);
    try {
      // The start has made its first attempt, and its next one is at least 200 ms away.
      expect(connections).toBe(1);
      await expect(app.get(KafkaReadinessCheck).check()).rejects.toThrow();
    } finally {
      await app.close();
      broker.close();
    }
  });

  it('reports not ready, quickly, while the broker is unreachable', async () => {
    const app = await startService('unreachable', ['127.0.0.1:9']);
    try {
      const started = Date.now();
      await expect(app.get(KafkaReadinessCheck).check()).rejects.toThrow();
      // A refused connection fails the check at once (it does not retry) and a silent broker after
      // 800 ms; kafkajs's retries would take 2.2 s. The margin between is for a busy machine.
      expect(Date.now() - started).toBeLessThan(1500);
    } finally {
      await app.close();
    }
  });
});
