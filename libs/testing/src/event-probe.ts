import { randomBytes } from 'node:crypto';
import { parseEnvelope, type AnyEventDefinition, type EnvelopeOf, type EventEnvelope } from '@petstore/contracts';
import {
  LogLevel,
  createKafkaClient,
  decodeHeaders,
  namespaced,
  provisionTopics,
} from '@petstore/kafka';
import type { Consumer } from 'kafkajs';
import { testKafkaBrokers } from './test-environment';

export interface EventProbeOptions {
  /** The suite's namespace (see uniqueNamespace). */
  namespace: string;
  /** Un-namespaced topics, e.g. `[Topics.catalogPet, deadLetterTopic('inventory')]`. */
  topics: string[];
  brokers?: string[];
}

/** A message seen by the probe. */
export interface ProbedMessage {
  /** Un-namespaced. */
  topic: string;
  partition: number;
  offset: string;
  key: string | null;
  headers: Record<string, string>;
  value: string | null;
  /** The parsed envelope, when the value is one. */
  envelope?: EventEnvelope;
}

interface Waiter {
  matches(message: ProbedMessage): boolean;
  resolve(message: ProbedMessage): void;
}

/**
 * Reads the namespaced topics from their beginning in a consumer group of its own and keeps
 * every message, so a test can wait for an event instead of sleeping.
 *
 *   const probe = await EventProbe.start({ namespace, topics: [Topics.catalogPet] });
 *   const created = await probe.waitForEvent(PetCreated, (e) => e.payload.pet.name === 'Rex');
 *   await probe.stop();
 */
export class EventProbe {
  private readonly seen: ProbedMessage[] = [];
  private readonly waiters = new Set<Waiter>();

  private constructor(
    private readonly namespace: string,
    private readonly consumer: Consumer,
  ) {}

  static async start({ namespace, topics, brokers = testKafkaBrokers() }: EventProbeOptions): Promise<EventProbe> {
    const kafka = createKafkaClient({ clientId: `${namespace}probe`, brokers, logLevel: LogLevel.ERROR });
    const names = topics.map((topic) => namespaced(namespace, topic));
    const admin = kafka.admin();
    await admin.connect();
    try {
      // The producer under test may not have started yet; subscribing needs the topics.
      await provisionTopics(admin, names);
    } finally {
      await admin.disconnect();
    }
    const consumer = kafka.consumer({
      groupId: `${namespace}probe-${randomBytes(4).toString('hex')}`,
      sessionTimeout: 6000,
      heartbeatInterval: 1000,
      maxWaitTimeInMs: 100,
      allowAutoTopicCreation: false,
    });
    const probe = new EventProbe(namespace, consumer);
    await consumer.connect();
    await consumer.subscribe({ topics: names, fromBeginning: true });
    await consumer.run({
      partitionsConsumedConcurrently: 3,
      eachMessage: async ({ topic, partition, message }) => {
        const value = message.value ? message.value.toString('utf8') : null;
        probe.record({
          topic: topic.slice(namespace.length),
          partition,
          offset: message.offset,
          key: message.key ? message.key.toString('utf8') : null,
          headers: decodeHeaders(message.headers),
          value,
          envelope: tryParse(value),
        });
      },
    });
    return probe;
  }

  /** The first event (already seen or still to come) that matches. */
  async waitFor(predicate: (event: EventEnvelope) => boolean, timeoutMs = 10_000): Promise<EventEnvelope> {
    const message = await this.waitForMessage(
      (candidate) => candidate.envelope !== undefined && predicate(candidate.envelope),
      timeoutMs,
    );
    return message.envelope as EventEnvelope;
  }

  /** The first event of that type (validated by its definition) that matches. */
  async waitForEvent<D extends AnyEventDefinition>(
    definition: D,
    predicate: (event: EnvelopeOf<D>) => boolean = () => true,
    timeoutMs = 10_000,
  ): Promise<EnvelopeOf<D>> {
    const event = await this.waitFor(
      (candidate) => definition.is(candidate) && predicate(definition.parse(candidate) as EnvelopeOf<D>),
      timeoutMs,
    );
    return definition.parse(event) as EnvelopeOf<D>;
  }

  /** The first raw message (already seen or still to come) that matches, e.g. on a dead-letter topic. */
  waitForMessage(predicate: (message: ProbedMessage) => boolean, timeoutMs = 10_000): Promise<ProbedMessage> {
    const found = this.seen.find((message) => safely(predicate, message));
    if (found) return Promise.resolve(found);
    return new Promise<ProbedMessage>((resolve, reject) => {
      const waiter: Waiter = {
        matches: (message) => safely(predicate, message),
        resolve: (message) => {
          clearTimeout(timer);
          this.waiters.delete(waiter);
          resolve(message);
        },
      };
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        reject(new Error(`No matching message within ${timeoutMs} ms; seen: ${this.describeSeen()}`));
      }, timeoutMs);
      this.waiters.add(waiter);
    });
  }

  /** Every event seen so far, in arrival order (per partition: in offset order). */
  all(): EventEnvelope[] {
    return this.seen.flatMap((message) => (message.envelope ? [message.envelope] : []));
  }

  /** Every message seen so far, events or not. */
  messages(): ProbedMessage[] {
    return [...this.seen];
  }

  async stop(): Promise<void> {
    await this.consumer.disconnect();
  }

  private record(message: ProbedMessage): void {
    this.seen.push(message);
    for (const waiter of [...this.waiters]) {
      if (waiter.matches(message)) waiter.resolve(message);
    }
  }

  private describeSeen(): string {
    if (this.seen.length === 0) return `nothing on ${this.namespace}*`;
    return this.seen
      .slice(-20)
      .map((message) => `${message.topic}:${message.envelope?.type ?? 'raw'}(${message.key ?? ''})`)
      .join(', ');
  }
}

/** A predicate that throws (say, on an event of another shape) does not match. */
function safely(predicate: (message: ProbedMessage) => boolean, message: ProbedMessage): boolean {
  try {
    return predicate(message);
  } catch {
    return false;
  }
}

function tryParse(value: string | null): EventEnvelope | undefined {
  if (value === null) return undefined;
  try {
    return parseEnvelope(value);
  } catch {
    return undefined;
  }
}
