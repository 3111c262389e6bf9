import { randomBytes } from 'node:crypto';
import {
  KAFKA_ADMIN_PRINCIPAL,
  deadLetterTopic,
  kafkaAccessTable,
  kafkaPrincipals,
  type KafkaAcl,
  type KafkaPrincipal,
} from '@petstore/contracts';
import type { Admin, Kafka } from 'kafkajs';
import { LogLevel, createKafkaClient, principalSecurity, provisionKafka, runDeadLetterCommand, type KafkaSecurity } from '.';

// Each refusal is one round trip, but a consumer's refusal comes only after its group's join.
jest.setTimeout(60_000);

const brokers = (process.env['KAFKA_BROKERS'] || '127.0.0.1:9092').split(',');
const secretsDir = process.env['KAFKA_SECRETS_DIR'] || `${process.env['HOME']}/.cache/petstore/kafka-data/secrets`;
// uniqueNamespace's shape (@petstore/testing depends on this lib), so the run's end deletes these topics too.
const newNamespace = () => `t-${process.env['PETSTORE_TEST_RUN'] ?? 'local'}-${randomBytes(4).toString('hex')}.`;
const namespace = newNamespace();
const table = kafkaAccessTable(namespace);
const topicNames = [...new Set(Object.values(table).flatMap((acls) => acls.filter((acl) => acl.resource === 'topic').map((acl) => acl.name)))];

const client = (clientId: string, security: KafkaSecurity): Kafka => createKafkaClient({ clientId, brokers, logLevel: LogLevel.NOTHING, security });
const as = (principal: string) => client(`${namespace}${principal}`, principalSecurity(secretsDir, principal));

const topicsWhere = (acls: KafkaAcl[], allows: (acl: KafkaAcl) => boolean) =>
  topicNames.filter((name) => acls.some((acl) => acl.resource === 'topic' && acl.name === name && allows(acl)));
function first<T>(items: T[]): T {
  if (items.length === 0) throw new Error('the access table gives this principal none');
  return items[0] as T;
}
const groupOf = (acls: KafkaAcl[]) => {
  const group = first(acls.filter((acl) => acl.resource === 'group'));
  return group.patternType === 'literal' ? group.name : `${group.name}spec-${randomBytes(3).toString('hex')}`;
};

interface Failure {
  type?: string;
  name?: string;
  message: string;
  cause?: Failure;
  errors?: Failure[];
}

/** What the broker answers: 'ok', or the error code of its refusal (kafkajs wraps it in its own errors). */
async function outcome(action: () => Promise<unknown>): Promise<string> {
  try {
    await action();
    return 'ok';
  } catch (error) {
    let failure: Failure | undefined = error as Failure;
    while (failure && !failure.type) failure = failure.cause ?? failure.errors?.[0];
    return failure?.type ?? (error as Failure).name ?? (error as Failure).message;
  }
}

/**
 * kafkajs answers a FindCoordinator refused with GROUP_AUTHORIZATION_FAILED by asking the next
 * broker, and at the end reports only that no broker named a coordinator.
 */
const GROUP_REFUSED = 'KafkaJSGroupCoordinatorNotFound';
/** Topics of another namespace: a test suite's rights end where its own topics do. */
const foreignTopics = kafkaAccessTable('t-someone-else.').probe.map((acl) => acl.name);

async function produce(kafka: Kafka, topic: string): Promise<void> {
  const producer = kafka.producer({ allowAutoTopicCreation: false, retry: { retries: 0 } });
  await producer.connect();
  try {
    await producer.send({ topic, acks: -1, messages: [{ key: 'spec', value: 'spec' }] });
  } finally {
    await producer.disconnect();
  }
}

/** Reads one message of `topic` in `groupId`; rejects with the first error of the consumer (a refusal crashes it). */
async function consumeOne(kafka: Kafka, topic: string, groupId: string): Promise<string> {
  const consumer = kafka.consumer({ groupId, maxWaitTimeInMs: 100, retry: { retries: 0 } });
  try {
    await consumer.connect();
    return await new Promise<string>((resolve, reject) => {
      consumer.on(consumer.events.CRASH, ({ payload }) => reject(payload.error));
      consumer
        .subscribe({ topics: [topic], fromBeginning: true })
        .then(() => consumer.run({ eachMessage: async ({ message }) => resolve(message.value?.toString() ?? '') }))
        .catch(reject);
    });
  } finally {
    await consumer.disconnect();
  }
}

describe('Kafka access: each principal may do its own job and nothing else', () => {
  let admin: Admin;
  const otherServicesGroups = (principal: KafkaPrincipal) =>
    (['catalog', 'orders', 'inventory'] as const).filter((service) => service !== principal).map((service) => `${namespace}${service}`);

  beforeAll(async () => {
    admin = as(KAFKA_ADMIN_PRINCIPAL).admin();
    await admin.connect();
    await provisionKafka(admin, namespace, { partitions: 1, replicationFactor: 1, minInsyncReplicas: 1 });
    // Something to read on every topic, written by the administrator.
    await produceAll(as(KAFKA_ADMIN_PRINCIPAL));
  });

  afterAll(async () => {
    await admin?.disconnect();
  });

  async function produceAll(kafka: Kafka): Promise<void> {
    for (const topic of topicNames) await produce(kafka, topic);
  }

  describe.each(kafkaPrincipals())('%s', (principal) => {
    const acls = table[principal];

    it('writes the topics it owns and reads the ones it consumes, in its own group', async () => {
      const kafka = as(principal);
      for (const topic of topicsWhere(acls, (acl) => acl.operations.includes('Write'))) {
        expect(`${topic}: ${await outcome(() => produce(kafka, topic))}`).toBe(`${topic}: ok`);
      }
      const readable = first(topicsWhere(acls, (acl) => acl.operations.includes('Read')));
      expect(await consumeOne(kafka, readable, groupOf(acls))).toBe('spec');
    });

    it('is refused a write to every topic it does not own', async () => {
      const kafka = as(principal);
      const owned = topicsWhere(acls, (acl) => acl.operations.includes('Write'));
      for (const topic of [...topicNames.filter((name) => !owned.includes(name)), first(foreignTopics)]) {
        expect(`${topic}: ${await outcome(() => produce(kafka, topic))}`).toBe(`${topic}: TOPIC_AUTHORIZATION_FAILED`);
      }
    });

    it('is refused a read of a topic it does not consume', async () => {
      const read = topicsWhere(acls, (acl) => acl.operations.includes('Read'));
      const unread = [...topicNames.filter((name) => !read.includes(name)), first(foreignTopics)];
      const kafka = as(principal);
      for (const topic of unread) {
        expect(`${topic}: ${await outcome(() => consumeOne(kafka, topic, groupOf(acls)))}`).toBe(`${topic}: TOPIC_AUTHORIZATION_FAILED`);
      }
    });

    it("is refused another service's consumer group", async () => {
      const readable = first(topicsWhere(acls, (acl) => acl.operations.includes('Read')));
      const kafka = as(principal);
      for (const group of otherServicesGroups(principal)) {
        expect(`${group}: ${await outcome(() => consumeOne(kafka, readable, group))}`).toBe(`${group}: ${GROUP_REFUSED}`);
      }
    });

    it('is refused the creation of a topic', async () => {
      const kafka = as(principal).admin();
      await kafka.connect();
      try {
        const created = await outcome(() =>
          kafka.createTopics({ topics: [{ topic: `${namespace}${principal}.own.v1`, numPartitions: 1, replicationFactor: 1 }] }),
        );
        expect(created).toBe('TOPIC_AUTHORIZATION_FAILED');
      } finally {
        await kafka.disconnect();
      }
    });

    it('is refused with a wrong password', async () => {
      const security = principalSecurity(secretsDir, principal);
      const wrong = client(`${namespace}${principal}-wrong`, { ...security, sasl: { username: principal, password: 'wrong' } }).admin();
      expect(await outcome(() => wrong.connect())).toBe('KafkaJSSASLAuthenticationError');
    });
  });

  describe('dlt', () => {
    const dlt = async (principal: string): Promise<{ code: number; output: string }> => {
      let output = '';
      const tools = {
        kafka: as(principal),
        topic: `${namespace}${deadLetterTopic('orders')}`,
        toolsGroupId: `${namespace}orders.dead-letter-tools`,
      };
      const code = await runDeadLetterCommand(tools, ['list', '--json'], { write: (text: string) => (output += text) });
      return { code, output };
    };

    it('lists as dead-letters', async () => {
      const { code, output } = await dlt('dead-letters');
      expect(code).toBe(0);
      // produceAll wrote to every topic, the dead-letter topics included (orders' own test writes its too).
      expect(JSON.parse(output)).toEqual(expect.arrayContaining([expect.objectContaining({ key: 'spec', value: 'spec' })]));
    });

    it("is refused as the service's own principal, with a message that names the principal to use", async () => {
      const { code, output } = await dlt('orders');
      expect(code).toBe(1);
      expect(output).toContain('KAFKA_SASL_USERNAME=dead-letters');
    });
  });

  it('lets every principal read its topics as soon as provisioning returns', async () => {
    // A namespace nothing has asked about yet; each principal connected first, so it asks at once.
    const fresh = newNamespace();
    const freshTable = kafkaAccessTable(fresh);
    const topicsOf = (principal: KafkaPrincipal) =>
      freshTable[principal].filter((acl) => acl.resource === 'topic' && acl.patternType === 'literal').map((acl) => acl.name);
    const clients = kafkaPrincipals()
      .filter((principal) => topicsOf(principal).length > 0)
      .map((principal) => ({ principal, admin: as(principal).admin() }));
    await Promise.all(clients.map(({ admin: its }) => its.connect()));
    try {
      // With the stacks' partitions: the broker applies the ACLs after the partitions' creation.
      await provisionKafka(admin, fresh);
      const answers = await Promise.all(
        clients.map(async ({ principal, admin: its }) => `${principal}: ${await outcome(() => its.fetchTopicMetadata({ topics: topicsOf(principal) }))}`),
      );
      expect(answers).toEqual(clients.map(({ principal }) => `${principal}: ok`));
    } finally {
      await Promise.all(clients.map(({ admin: its }) => its.disconnect()));
    }
  });

  it('refuses a connection with no credentials', async () => {
    const { tlsCa } = principalSecurity(secretsDir, KAFKA_ADMIN_PRINCIPAL);
    const anonymous = client(`${namespace}anonymous`, { tlsCa }).admin();
    expect(await outcome(() => anonymous.listTopics())).not.toBe('ok');
    await anonymous.disconnect();
  });

  it('refuses a connection without TLS', async () => {
    const withoutTls = client(`${namespace}plain`, { sasl: principalSecurity(secretsDir, 'orders').sasl }).admin();
    expect(await outcome(() => withoutTls.connect())).not.toBe('ok');
    await withoutTls.disconnect();
  });
});
