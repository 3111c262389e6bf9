import { randomBytes } from 'node:crypto';
import type { Admin, Kafka, Producer } from 'kafkajs';
import {
  DEAD_LETTER_HEADERS,
  LogLevel,
  NonRetriableError,
  createIdempotentProducer,
  createKafkaClient,
  namespaced,
  provisionTopics,
  runConsumer,
  sendAll,
  type ConsumedMessage,
  type RunningConsumer,
} from '.';

// Group joins and a 3 s commit interval: seconds each, more on a busy machine, as in the other suites on the broker.
jest.setTimeout(60_000);

const brokers = (process.env['KAFKA_BROKERS'] || '127.0.0.1:9092').split(',');
// uniqueNamespace's shape (@petstore/testing depends on this lib), so the run's end deletes these topics too.
const namespace = `t-${process.env['PETSTORE_TEST_RUN'] ?? 'local'}-${randomBytes(4).toString('hex')}.`;
const topic = namespaced(namespace, 'kafka-spec.things.v1');
const deadLetterTopic = namespaced(namespace, 'kafka-spec.dead-letter.v1');

/** Messages handed to a handler, with a way to wait for one without sleeping. */
class Collector {
  readonly messages: ConsumedMessage[] = [];
  private waiters: { predicate: (m: ConsumedMessage) => boolean; resolve: (m: ConsumedMessage) => void }[] = [];

  add(message: ConsumedMessage): void {
    this.messages.push(message);
    this.waiters = this.waiters.filter((waiter) => {
      if (!waiter.predicate(message)) return true;
      waiter.resolve(message);
      return false;
    });
  }

  waitFor(predicate: (m: ConsumedMessage) => boolean, timeoutMs = 10_000): Promise<ConsumedMessage> {
    const found = this.messages.find(predicate);
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`nothing matched within ${timeoutMs} ms`)), timeoutMs);
      this.waiters.push({
        predicate,
        resolve: (message) => {
          clearTimeout(timer);
          resolve(message);
        },
      });
    });
  }
}

const text = (message: ConsumedMessage) => message.value?.toString() ?? '';

/** Resolves once `done` holds (checked every 10 ms): for effects a handler writes to a plain array. */
function until(done: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const timer = setInterval(() => {
      if (!done()) return;
      clearInterval(timer);
      resolve();
    }, 10);
  });
}

describe('@petstore/kafka against the broker', () => {
  let kafka: Kafka;
  let admin: Admin;
  let producer: Producer;
  const running: RunningConsumer[] = [];

  beforeAll(async () => {
    kafka = createKafkaClient({ clientId: 'kafka-spec', brokers, logLevel: LogLevel.ERROR });
    admin = kafka.admin();
    await admin.connect();
    producer = createIdempotentProducer(kafka);
    await producer.connect();
  });

  afterAll(async () => {
    await Promise.all(running.map((consumer) => consumer.stop()));
    await producer?.disconnect();
    await admin?.disconnect();
  });

  /** Everything on `sourceTopic`, read by a consumer of its own group (stopped with the others). */
  async function collected(group: string, sourceTopic: string): Promise<Collector> {
    const collector = new Collector();
    running.push(
      await runConsumer(kafka, {
        groupId: namespaced(namespace, group),
        topics: [sourceTopic],
        deadLetterTopic: namespaced(namespace, 'unused'),
        handle: async (message) => collector.add(message),
      }),
    );
    return collector;
  }

  it('provisions topics idempotently, also when replicas race', async () => {
    const names = [topic, deadLetterTopic];
    await Promise.all([provisionTopics(admin, names), provisionTopics(admin, names)]);
    await provisionTopics(admin, names);

    const { topics } = await admin.fetchTopicMetadata({ topics: names });
    expect(topics.map((t) => [t.name, t.partitions.length]).sort()).toEqual([
      [deadLetterTopic, 12],
      [topic, 12],
    ]);
  });

  it('retries, dead-letters what keeps failing, and keeps each key in order', async () => {
    const handled = new Collector();
    const deadLettered = await collected('kafka-spec-dlt', deadLetterTopic);
    const failuresLeft = new Map([['flaky', 2]]);

    running.push(
      await runConsumer(kafka, {
        groupId: namespaced(namespace, 'kafka-spec'),
        topics: [topic],
        deadLetterTopic,
        maxAttempts: 3,
        backoff: { initialMs: 10, maxMs: 40 },
        logger: { warn: () => undefined, error: () => undefined },
        handle: async (message) => {
          const value = text(message);
          if (value === 'poison') throw new Error('cannot handle poison');
          if (value === 'garbage') throw new NonRetriableError('not an event');
          const left = failuresLeft.get(value) ?? 0;
          if (left > 0) {
            failuresLeft.set(value, left - 1);
            throw new Error('transient');
          }
          handled.add(message);
        },
      }),
    );

    const values = ['a1', 'poison', 'a2', 'garbage', 'flaky', 'a3'];
    await sendAll(producer, [
      {
        topic,
        messages: values.map((value) => ({ key: 'pet-1', value, headers: { origin: 'spec' } })),
      },
    ]);

    await handled.waitFor((m) => text(m) === 'a3');
    expect(handled.messages.map(text)).toEqual(['a1', 'a2', 'flaky', 'a3']);
    expect(handled.messages.find((m) => text(m) === 'flaky')?.attempt).toBe(3);

    const poison = await deadLettered.waitFor((m) => text(m) === 'poison');
    expect(poison.key).toBe('pet-1');
    expect(poison.headers).toMatchObject({
      origin: 'spec',
      [DEAD_LETTER_HEADERS.topic]: topic,
      [DEAD_LETTER_HEADERS.group]: namespaced(namespace, 'kafka-spec'),
      [DEAD_LETTER_HEADERS.attempts]: '3',
      [DEAD_LETTER_HEADERS.error]: 'cannot handle poison',
      [DEAD_LETTER_HEADERS.errorName]: 'Error',
    });
    const garbage = await deadLettered.waitFor((m) => text(m) === 'garbage');
    expect(garbage.headers).toMatchObject({
      [DEAD_LETTER_HEADERS.attempts]: '1',
      [DEAD_LETTER_HEADERS.errorName]: 'NonRetriableError',
    });
    expect(deadLettered.messages.map(text).sort()).toEqual(['garbage', 'poison']);
  });
  it('hands runs of a partition to handleBatch, and one by one after a batch fails', async () => {
    const batchTopic = namespaced(namespace, 'kafka-spec-batch');
    await provisionTopics(admin, [batchTopic]);
    const committed: string[] = [];
    const batches: string[][] = [];
    const deadLettered = await collected('kafka-spec-batch-dlt', deadLetterTopic);
    // Everything is on the topic before the consumer starts, so its first fetch holds a run of messages.
    const values = ['b1', 'b2', 'poison', 'b3', 'b4'];
    await sendAll(producer, [{ topic: batchTopic, messages: values.map((value) => ({ key: 'pet-2', value })) }]);
    running.push(
      await runConsumer(kafka, {
        groupId: namespaced(namespace, 'kafka-spec-batch'),
        topics: [batchTopic],
        deadLetterTopic,
        maxAttempts: 2,
        backoff: { initialMs: 10, maxMs: 20 },
        logger: { warn: () => undefined, error: () => undefined },
        handleBatch: async (messages) => {
          const run = messages.map(text);
          batches.push(run);
          // All or nothing: a failing batch leaves no effect behind.
          if (run.includes('poison')) throw new Error('cannot handle poison');
          committed.push(...run);
        },
        handle: async (message) => {
          if (text(message) === 'poison') throw new Error('cannot handle poison');
          committed.push(text(message));
        },
      }),
    );

    await deadLettered.waitFor((m) => text(m) === 'poison');
    await until(() => committed.includes('b4'));
    expect(committed).toEqual(['b1', 'b2', 'b3', 'b4']);
    expect(batches[0]).toEqual(values);
  });

  it('hands the batches of every partition of a fetch to handleBatch at once, each in order; a failing one is retried per partition', async () => {
    const gatherTopic = namespaced(namespace, 'kafka-spec-gather');
    const gatherDeadLetters = namespaced(namespace, 'kafka-spec-gather.dead-letter');
    await provisionTopics(admin, [gatherTopic, gatherDeadLetters], { partitions: 3, replicationFactor: 1, minInsyncReplicas: 1 });
    const committed: string[] = [];
    const calls: ConsumedMessage[][] = [];
    const deadLettered = await collected('kafka-spec-gather-dlt', gatherDeadLetters);
    const runs = [
      ['a1', 'a2', 'a3'],
      ['b1', 'refused', 'b2'],
      ['c1', 'poison', 'c2'],
    ];
    // Everything is on the topic before the consumer starts, so its first fetch holds all three partitions.
    await sendAll(producer, [
      { topic: gatherTopic, messages: runs.flatMap((values, partition) => values.map((value) => ({ partition, value }))) },
    ]);
    running.push(
      await runConsumer(kafka, {
        groupId: namespaced(namespace, 'kafka-spec-gather'),
        topics: [gatherTopic],
        deadLetterTopic: gatherDeadLetters,
        maxAttempts: 2,
        backoff: { initialMs: 10, maxMs: 20 },
        logger: { warn: () => undefined, error: () => undefined },
        handleBatch: async (messages) => {
          calls.push(messages);
          // All or nothing: a failing batch leaves no effect behind.
          if (messages.some((message) => text(message) === 'poison')) throw new Error('cannot handle poison');
          const refused = messages.filter((message) => text(message) === 'refused');
          committed.push(...messages.filter((message) => text(message) !== 'refused').map(text));
          return refused.map(({ topic, partition, offset }) => ({
            topic,
            partition,
            offset,
            reason: new NonRetriableError('refused by the handler'),
          }));
        },
        handle: async (message) => {
          if (text(message) === 'poison') throw new Error('cannot handle poison');
          committed.push(text(message));
        },
      }),
    );

    await deadLettered.waitFor((m) => text(m) === 'poison');
    await deadLettered.waitFor((m) => text(m) === 'refused');
    await until(() => committed.length >= 7);
    // One call for the whole fetch, every partition's run in order.
    const first = calls[0];
    expect(new Set(first.map((message) => message.partition))).toEqual(new Set([0, 1, 2]));
    for (const [partition, values] of runs.entries()) {
      expect(first.filter((message) => message.partition === partition).map(text)).toEqual(values);
    }
    // It failed, so each partition went on its own: two applied whole (less what was refused), the third one by one.
    expect(committed.filter((value) => value.startsWith('a'))).toEqual(['a1', 'a2', 'a3']);
    expect(committed.filter((value) => value.startsWith('b'))).toEqual(['b1', 'b2']);
    expect(committed.filter((value) => value.startsWith('c'))).toEqual(['c1', 'c2']);
    expect(committed).toHaveLength(7);
    expect(deadLettered.messages.map(text).sort()).toEqual(['poison', 'refused']);
  });

  it('with a commit interval, commits the handled offsets once it has passed, also with no more traffic, not after every batch', async () => {
    const intervalTopic = namespaced(namespace, 'kafka-spec-interval');
    const groupId = namespaced(namespace, 'kafka-spec-interval');
    await provisionTopics(admin, [intervalTopic]);
    const handled = new Collector();
    const committedOffsets = async () => {
      const [{ partitions }] = await admin.fetchOffsets({ groupId, topics: [intervalTopic] });
      return partitions.reduce((sum, { offset }) => sum + Math.max(0, Number(offset)), 0);
    };
    running.push(
      await runConsumer(kafka, {
        groupId,
        topics: [intervalTopic],
        deadLetterTopic,
        commitIntervalMs: 3000,
        handle: async (message) => handled.add(message),
      }),
    );
    const send = (value: string) => sendAll(producer, [{ topic: intervalTopic, messages: [{ key: value, value }] }]);
    await send('i1');
    await handled.waitFor((m) => text(m) === 'i1');
    await send('i2');
    await handled.waitFor((m) => text(m) === 'i2');
    // Two batches handled within the interval: neither committed anything yet.
    expect(await committedOffsets()).toBe(0);

    // No more traffic: once the interval has passed, an idle fetch commits what was handled.
    for (let tries = 0; (await committedOffsets()) < 2 && tries < 100; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(await committedOffsets()).toBe(2);
  });
  it('stops gracefully: the batch in hand finishes, its offsets are committed and the member leaves its group', async () => {
    const stopTopic = namespaced(namespace, 'kafka-spec-stop');
    const groupId = namespaced(namespace, 'kafka-spec-stop');
    await provisionTopics(admin, [stopTopic]);
    let started!: () => void;
    const batchStarted = new Promise<void>((resolve) => (started = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const finished: string[] = [];
    const consumer = await runConsumer(kafka, {
      groupId,
      topics: [stopTopic],
      deadLetterTopic,
      // Long enough that only the stop can commit.
      commitIntervalMs: 60_000,
      handle: async (message) => void finished.push(text(message)),
      handleBatch: async (messages) => {
        started();
        await released;
        finished.push(...messages.map(text));
      },
    });
    await sendAll(producer, [
      { topic: stopTopic, messages: ['s1', 's2', 's3'].map((value) => ({ key: 'same', value, partition: 0 })) },
    ]);
    await batchStarted;
    const stopped = consumer.stop();
    await new Promise((resolve) => setTimeout(resolve, 200));
    release();
    await stopped;

    expect(finished).toEqual(['s1', 's2', 's3']);
    const [{ partitions }] = await admin.fetchOffsets({ groupId, topics: [stopTopic] });
    expect(partitions.find((one) => one.partition === 0)?.offset).toBe('3');
    const {
      groups: [group],
    } = await admin.describeGroups([groupId]);
    expect(group.members).toEqual([]);
  });
});
