import { Inject, Injectable } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { MikroOrmModule } from '@mikro-orm/nestjs';
import { Migration } from '@mikro-orm/migrations';
import { MikroORM, type EntityManager } from '@mikro-orm/postgresql';
import { OrderPlaced, Topics, deadLetterTopic, type EnvelopeOf, type EventEnvelope } from '@petstore/contracts';
import { databaseOptions, executePrepared, prepareTestDatabase } from '@petstore/database';
import {
  DEAD_LETTER_HEADERS,
  LogLevel,
  NonRetriableError,
  REPLAYED_FOR_GROUP_HEADER,
  createKafkaClient,
  namespaced,
  runDeadLetterCommand,
  type DeadLetterTools,
} from '@petstore/kafka';
import { EventProbe, eventually, testDatabaseUrl, testKafkaBrokers, uniqueNamespace } from '@petstore/testing';
import type { Kafka } from 'kafkajs';
import {
  EventHandler,
  MessagingModule,
  MessagingService,
  OUTBOX_HEADERS,
  OutboxWriter,
  messagingMigrations,
  type EventHandlerOf,
} from '.';

jest.setTimeout(90_000);

/** The consumer that dead-letters, and another one of the same topic that handles everything. */
const FAILING = 'dlt-spec';
const PEER = 'dlt-spec-peer';
const namespace = uniqueNamespace();
const brokers = testKafkaBrokers();

class MigrationDeadLetterSpec extends Migration {
  override async up(): Promise<void> {
    // No unique constraint on purpose: an event applied twice leaves two rows.
    this.addSql('create table spec_effect (id serial primary key, consumer text not null, event_id uuid not null)');
    // What the failing consumer lacks until an operator fixes it (a missing reference, a bad deploy).
    this.addSql('create table spec_outage (consumer text not null, order_id int not null)');
  }
}

const ormOptions = databaseOptions({
  url: testDatabaseUrl('messaging_dead_letters'),
  entities: [],
  migrations: [...messagingMigrations, { name: 'MigrationDeadLetterSpec', class: MigrationDeadLetterSpec }],
  poolMax: 5,
});

const CONSUMER = Symbol('CONSUMER');

@EventHandler(OrderPlaced)
@Injectable()
class OrderPlacedEffectHandler implements EventHandlerOf<typeof OrderPlaced> {
  constructor(@Inject(CONSUMER) private readonly consumer: string) {}

  async handleBatch(events: EnvelopeOf<typeof OrderPlaced>[], em: EntityManager): Promise<void> {
    const missing = await executePrepared<{ order_id: number }>(
      em,
      'select order_id from spec_outage where consumer = ? and order_id = any(?::int[])',
      [this.consumer, events.map((event) => event.payload.orderId)],
    );
    if (missing.length > 0) throw new NonRetriableError(`order ${missing[0].order_id} is unknown here`);
    await executePrepared(em, 'insert into spec_effect (consumer, event_id) select ?, unnest(?::uuid[])', [
      this.consumer,
      events.map((event) => event.eventId),
    ]);
  }
}

async function startConsumer(consumer: string): Promise<TestingModule> {
  const app = await Test.createTestingModule({
    imports: [
      MikroOrmModule.forRoot(ormOptions),
      MessagingModule.forRoot({
        producer: consumer,
        kafka: { brokers, namespace, logLevel: LogLevel.NOTHING },
        handlers: [OrderPlacedEffectHandler],
      }),
    ],
    providers: [OrderPlacedEffectHandler, { provide: CONSUMER, useValue: consumer }],
  })
    .setLogger({ log: () => undefined, error: () => undefined, warn: () => undefined })
    .compile();
  await app.init();
  await app.get(MessagingService).whenConsumerJoined();
  return app;
}

let nextOrderId = 1;
const orderPlaced = (petId: number) =>
  OrderPlaced.create({ orderId: nextOrderId++, petId, quantity: 1 }, { producer: 'orders', correlationId: 'dlt-spec' });

/** What `node main.js dlt ...` prints, for the failing consumer's topic. */
async function dlt(tools: DeadLetterTools, ...args: string[]): Promise<{ code: number; output: string }> {
  let output = '';
  const sink = { write: (text: string) => (output += text) };
  const code = await runDeadLetterCommand(tools, args, sink);
  return { code, output };
}

describe('dead-letter tools: list, show, replay and purge against PostgreSQL and Kafka', () => {
  let failing: TestingModule;
  let peer: TestingModule;
  let orm: MikroORM;
  let probe: EventProbe;
  let kafka: Kafka;
  let tools: DeadLetterTools;

  const effects = (consumer: string, event: EventEnvelope): Promise<unknown[]> =>
    orm.em.fork().execute('select 1 from spec_effect where consumer = ? and event_id = ?', [consumer, event.eventId]);
  const breakOrder = (event: EnvelopeOf<typeof OrderPlaced>) =>
    orm.em.fork().execute('insert into spec_outage (consumer, order_id) values (?, ?)', [FAILING, event.payload.orderId]);
  const commit = (...events: EventEnvelope[]) =>
    orm.em.fork().transactional(async (em) => {
      for (const event of events) failing.get(OutboxWriter).add(em, event);
    });

  beforeAll(async () => {
    await prepareTestDatabase(ormOptions);
    // The probe provisions the topics it watches; the services may not create their dead-letter topics themselves.
    probe = await EventProbe.start({ namespace, brokers, topics: [Topics.ordersOrder, deadLetterTopic(FAILING), deadLetterTopic(PEER)] });
    failing = await startConsumer(FAILING);
    peer = await startConsumer(PEER);
    orm = failing.get(MikroORM);
    kafka = createKafkaClient({ clientId: 'dlt-spec-tools', brokers, logLevel: LogLevel.NOTHING });
    tools = {
      kafka,
      topic: namespaced(namespace, deadLetterTopic(FAILING)),
      toolsGroupId: namespaced(namespace, `${FAILING}.dead-letter-tools`),
    };
  });

  afterAll(async () => {
    await peer?.close();
    await failing?.close();
    await probe?.stop();
  });

  it('lists a poisoned event, replays it once fixed, and its effect happens exactly once', async () => {
    expect(await dlt(tools, 'list')).toEqual({ code: 0, output: `${tools.topic}: no dead letters.\n` });

    const poisoned = orderPlaced(901);
    await breakOrder(poisoned);
    const after = orderPlaced(901);
    // Through the outbox, as in production: numbered by the relay, the next one on the same partition.
    await commit(poisoned, after);
    await eventually(async () => expect(await effects(FAILING, after)).toHaveLength(1));
    expect(await effects(FAILING, poisoned)).toEqual([]);
    await eventually(async () => expect(await effects(PEER, poisoned)).toHaveLength(1));

    const listed = JSON.parse((await dlt(tools, 'list', '--json')).output);
    expect(listed).toEqual([
      expect.objectContaining({
        eventId: poisoned.eventId,
        eventType: 'OrderPlaced',
        key: '901',
        originalTopic: namespaced(namespace, Topics.ordersOrder),
        consumerGroup: namespaced(namespace, FAILING),
        attempts: 1,
        errorName: 'NonRetriableError',
        error: `order ${poisoned.payload.orderId} is unknown here`,
        headers: expect.objectContaining({ 'event-id': poisoned.eventId }),
      }),
    ]);
    const [entry] = listed;
    expect(JSON.parse(entry.value).payload.orderId).toBe(poisoned.payload.orderId);
    const at = `${entry.partition}:${entry.offset}`;
    const table = (await dlt(tools, 'list')).output;
    expect(table).toContain(`${tools.topic}: 1 dead letter(s)`);
    expect(table).toMatch(new RegExp(`^${at} .*OrderPlaced\\s+${poisoned.eventId}\\s+.*order ${poisoned.payload.orderId} is unknown here$`, 'm'));

    const shown = await dlt(tools, 'show', poisoned.eventId);
    expect(shown.code).toBe(0);
    expect(shown.output).toContain(`${DEAD_LETTER_HEADERS.error}: order ${poisoned.payload.orderId} is unknown here`);
    expect(shown.output).toContain(`"eventId": "${poisoned.eventId}"`);
    expect(JSON.parse((await dlt(tools, 'show', at, '--json')).output)).toMatchObject({
      eventId: poisoned.eventId,
      headers: { 'event-id': poisoned.eventId, [OUTBOX_HEADERS.seq]: expect.any(String) },
      value: expect.stringContaining(poisoned.eventId),
    });

    // The operator fixes the cause, then replays by event id, and once more by position.
    await orm.em.fork().execute('delete from spec_outage');
    const replayed = await dlt(tools, 'replay', poisoned.eventId);
    expect(replayed.code).toBe(0);
    expect(replayed.output).toContain(`replayed ${at} (OrderPlaced ${poisoned.eventId}) → ${entry.originalTopic}[${entry.originalPartition}]@`);
    await eventually(async () => expect(await effects(FAILING, poisoned)).toHaveLength(1));
    expect((await dlt(tools, 'replay', at)).code).toBe(0);

    // A marker behind both replays on the same partition: once it is handled, so are they.
    const marker = orderPlaced(901);
    await commit(marker);
    await eventually(async () => expect(await effects(FAILING, marker)).toHaveLength(1));
    await eventually(async () => expect(await effects(PEER, marker)).toHaveLength(1));
    expect(await effects(FAILING, poisoned)).toHaveLength(1);
    // The other group had handled the original: it skips the replays.
    expect(await effects(PEER, poisoned)).toHaveLength(1);
    // Deduplicated by its id, as an event without a publication number.
    expect(
      await orm.em.fork().execute('select consumer from processed_event where event_id = ?', [poisoned.eventId]),
    ).toEqual([{ consumer: FAILING }]);

    // Key, value and original headers as published; no dead-letter or numbering header.
    const copies = probe
      .messages()
      .filter((m) => m.topic === Topics.ordersOrder && m.envelope?.eventId === poisoned.eventId);
    expect(copies).toHaveLength(3);
    const [original, ...replays] = copies;
    for (const copy of replays) {
      expect(copy.partition).toBe(original.partition);
      expect(copy.key).toBe(original.key);
      expect(copy.value).toBe(original.value);
      const { [OUTBOX_HEADERS.source]: _source, [OUTBOX_HEADERS.seq]: _seq, ...kept } = original.headers;
      expect(copy.headers).toEqual({ ...kept, [REPLAYED_FOR_GROUP_HEADER]: namespaced(namespace, FAILING) });
    }

    // Purged: no longer listed, while a later dead letter is.
    const purged = await dlt(tools, 'purge');
    expect(purged.output).toContain(`purged 1 dead letter(s) from ${tools.topic}\n  ${at} OrderPlaced ${poisoned.eventId}`);
    expect((await dlt(tools, 'list')).output).toBe(`${tools.topic}: no dead letters.\n`);
    const later = orderPlaced(901);
    await breakOrder(later);
    await commit(later);
    await probe.waitForMessage((m) => m.topic === deadLetterTopic(FAILING) && m.envelope?.eventId === later.eventId);
    const afterPurge = JSON.parse((await dlt(tools, 'list', '--json')).output);
    expect(afterPurge.map((one: { eventId: string }) => one.eventId)).toEqual([later.eventId]);
  });

  it('refuses a selector that names nothing, and explains its usage', async () => {
    let errors = '';
    const code = await runDeadLetterCommand(tools, ['show', '9:999'], { write: () => true }, { write: (text: string) => (errors += text) });
    expect(code).toBe(1);
    expect(errors).toBe('dlt show: No dead letter matches "9:999" (see `dlt list`)\n');
    const usage = await dlt(tools, 'replay');
    expect(usage.code).toBe(2);
    expect(usage.output).toMatch(/^Usage: dlt <command> \[--json\]/);
  });
});
