import { randomBytes } from 'node:crypto';
import { PetCreated, PetDeleted, Topics, serializeEnvelope } from '@petstore/contracts';
import { LogLevel, createIdempotentProducer, createKafkaClient, namespaced, provisionTopics } from '@petstore/kafka';
import { EventProbe, deleteTestRunTopics, eventually, testDatabaseUrl, testKafkaBrokers, uniqueNamespace } from '.';

// A consumer group's join and the broker's topic deletions take seconds on a busy machine.
jest.setTimeout(30_000);

describe('test environment', () => {
  it('makes a fresh, valid namespace each time, named after the test run', () => {
    const run = process.env['PETSTORE_TEST_RUN'];
    expect(run).toMatch(/^[0-9a-f]{8}$/);
    const namespace = uniqueNamespace();
    expect(namespace).toMatch(new RegExp(`^t-${run}-[0-9a-f]{8}\\.$`));
    expect(uniqueNamespace('e2e')).toMatch(new RegExp(`^e2e-${run}-[0-9a-f]{8}\\.$`));
    expect(uniqueNamespace()).not.toBe(namespace);
  });

  it('names the test database of a service, unless the environment overrides it', () => {
    expect(testDatabaseUrl('catalog')).toBe('postgres://postgres@127.0.0.1:5432/petstore_catalog_test');
    process.env['TEST_DATABASE_URL_ORDERS'] = 'postgres://u@db:5432/orders_test';
    try {
      expect(testDatabaseUrl('orders')).toBe('postgres://u@db:5432/orders_test');
    } finally {
      delete process.env['TEST_DATABASE_URL_ORDERS'];
    }
  });
});

describe('EventProbe', () => {
  const namespace = uniqueNamespace();
  let probe: EventProbe;

  beforeAll(async () => {
    probe = await EventProbe.start({ namespace, topics: [Topics.catalogPet] });
  });

  afterAll(async () => {
    await probe?.stop();
  });

  it('waits for events published before and after it is asked', async () => {
    const producer = createIdempotentProducer(
      createKafkaClient({ clientId: 'probe-spec', brokers: testKafkaBrokers(), logLevel: LogLevel.NOTHING }),
    );
    await producer.connect();
    const meta = { producer: 'catalog' };
    const first = PetCreated.create({ pet: { id: 1, name: 'Rex', categoryId: 1, status: 'available' } }, meta);
    const second = PetDeleted.create({ petId: 1 }, meta);
    try {
      const topic = namespaced(namespace, Topics.catalogPet);
      await producer.send({ topic, messages: [{ key: first.key, value: serializeEnvelope(first) }] });
      expect((await probe.waitForEvent(PetCreated, (e) => e.payload.pet.name === 'Rex')).eventId).toBe(first.eventId);

      const waiting = probe.waitFor((e) => e.type === 'PetDeleted');
      await producer.send({
        topic,
        messages: [
          { key: second.key, value: serializeEnvelope(second) },
          { key: '1', value: 'raw' },
        ],
      });
      expect(await waiting).toEqual(second);
      await probe.waitForMessage((m) => m.value === 'raw');
      expect(probe.all()).toEqual([first, second]);
      expect(probe.messages().map((m) => [m.topic, m.key])).toEqual([
        [Topics.catalogPet, '1'],
        [Topics.catalogPet, '1'],
        [Topics.catalogPet, '1'],
      ]);
    } finally {
      await producer.disconnect();
    }
  });

  it('gives up after the timeout and says what it saw', async () => {
    await expect(probe.waitFor((e) => e.type === 'OrderPlaced', 200)).rejects.toThrow(
      /No matching message within 200 ms; seen: catalog.pet.v1:PetCreated\(1\)/,
    );
  });
});

describe('deleteTestRunTopics', () => {
  it("deletes the run's topics and leaves every other run's", async () => {
    const admin = createKafkaClient({ clientId: 'teardown-spec', brokers: testKafkaBrokers(), logLevel: LogLevel.NOTHING }).admin();
    await admin.connect();
    const ended = randomBytes(4).toString('hex');
    const endedTopics = [`t-${ended}-0a0b0c0d.things.v1`, `orders-contract-${ended}-0a0b0c0d.orders.order.v1`];
    const keptTopics = [namespaced(uniqueNamespace(), 'things.v1'), `t-${ended}0-0a0b0c0d.things.v1`];
    try {
      // provisionTopics waits for the leaders through the broker's first "unknown topic" answers.
      await provisionTopics(admin, [...endedTopics, ...keptTopics], { partitions: 1, replicationFactor: 1, minInsyncReplicas: 1 });
      await deleteTestRunTopics(ended);
      // The broker's metadata may list a deleted topic for a moment.
      await eventually(async () => {
        const left = await admin.listTopics();
        expect(endedTopics.filter((topic) => left.includes(topic))).toEqual([]);
        expect(keptTopics.filter((topic) => left.includes(topic))).toEqual(keptTopics);
      }, 10_000);
    } finally {
      // A failure here must neither hide the test's own nor skip the disconnect: an open
      // connection would keep Jest from exiting.
      await admin.deleteTopics({ topics: keptTopics }).catch(() => undefined);
      await admin.disconnect();
    }
  });
});
