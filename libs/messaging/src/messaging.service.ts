import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { EVENT_SERVICES, deadLetterTopic, type EventService } from '@petstore/contracts';
import { backoffDelay } from '@petstore/backoff';
import { OFFSET_COMMIT_INTERVAL_MS, runConsumer, waitForTopics, type RunningConsumer } from '@petstore/kafka';
import type { Admin } from 'kafkajs';
import { EventDispatcher } from './event.dispatcher';
import { MessagingKafka } from './messaging-kafka';
import { consumerObserver } from './messaging.metrics';
import { MESSAGING_OPTIONS, RELAY_SETTINGS, defaultConsumerSettings, type MessagingOptions, type RelaySettings } from './messaging.options';
import { OutboxRelay } from './outbox.relay';
import { waitingForDatabase } from './wait-for-database';

const BROKER_CHECK_TIMEOUT_MS = 800;
const BROKER_CHECK_CACHE_MS = 1000;

/**
 * Brings the service's messaging up after the application has started (topics, relay,
 * consumer group) and down before it shuts down (consumer first, so no handler is cut short,
 * then the relay publishes what is left). If Kafka is unreachable at start the service still
 * starts, reports not ready, and keeps trying.
 */
@Injectable()
export class MessagingService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(MessagingService.name);
  private consumer?: RunningConsumer;
  private checkAdmin?: Admin;
  private started = false;
  private stopped = false;
  private restartTimer?: NodeJS.Timeout;
  private markStarted!: () => void;
  private readonly startedPromise = new Promise<void>((resolve) => (this.markStarted = resolve));
  private lastCheck?: { at: number; error?: Error };
  private checking?: Promise<void>;

  constructor(
    private readonly kafka: MessagingKafka,
    private readonly relay: OutboxRelay,
    private readonly dispatcher: EventDispatcher,
    @Inject(MESSAGING_OPTIONS) private readonly options: MessagingOptions,
    @Inject(RELAY_SETTINGS) private readonly relaySettings: RelaySettings,
  ) {}

  /** The consumer group of this service (namespaced). */
  get consumerGroup(): string {
    return this.kafka.name(this.options.producer);
  }

  /** Where this service's consumer puts what it cannot handle (namespaced). */
  get deadLetterTopic(): string {
    return this.kafka.name(deadLetterTopic(this.options.producer));
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.dispatcher.resolveHandlers();
    await this.startOrRetry(1);
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.restartTimer);
    await this.consumer?.stop().catch((error: Error) => this.logger.warn(`Stopping the consumer: ${error.message}`));
    await this.relay.stop();
    await this.checkAdmin?.disconnect().catch(() => undefined);
  }

  /** Resolves once the topics exist, the relay runs and the consumer (if any) runs. */
  whenStarted(): Promise<void> {
    return this.startedPromise;
  }

  /**
   * Resolves once the consumer has joined its group and holds partitions (at once for a
   * service without handlers). Start-up does not wait for it: after a crash the group may
   * wait out the dead member's session first.
   */
  async whenConsumerJoined(): Promise<void> {
    await this.startedPromise;
    await this.consumer?.whenJoined();
  }

  /**
   * Whether the broker answers: answered from a one-second cache, and never slower than
   * 800 ms. Fails until the topics are provisioned.
   */
  async checkBroker(): Promise<void> {
    if (!this.started) throw new Error('Kafka messaging has not started yet');
    const cached = this.lastCheck;
    if (!cached || Date.now() - cached.at >= BROKER_CHECK_CACHE_MS) {
      this.checking ??= this.askBroker()
        .then(
          () => void (this.lastCheck = { at: Date.now() }),
          (error: Error) => void (this.lastCheck = { at: Date.now(), error }),
        )
        .finally(() => (this.checking = undefined));
      await withTimeout(this.checking, BROKER_CHECK_TIMEOUT_MS, 'Kafka did not answer within 800 ms');
    }
    if (this.lastCheck?.error) throw this.lastCheck.error;
  }

  private async startOrRetry(attempt: number): Promise<void> {
    try {
      await this.start();
    } catch (error) {
      if (this.stopped) return;
      // The relay's wait: a service that started before Kafka relays as soon after Kafka comes up
      // as a running relay resumes after an outage (docs/RELIABILITY.md, "orders and inventory
      // restarted while the broker is down").
      const delay = backoffDelay(attempt, this.relaySettings.backoff);
      this.logger.warn(`Kafka messaging could not start (${(error as Error).message}); retrying in ${delay} ms`);
      this.restartTimer = setTimeout(() => void this.startOrRetry(attempt + 1), delay);
    }
  }

  private async start(): Promise<void> {
    // One try per attempt: startOrRetry waits between attempts. kafkajs's own retries of a broker
    // that is down would stretch each attempt by 2.5 s, and hold the HTTP server (health) for the first.
    const admin = this.kafka.kafkaTriedOnce.admin();
    await admin.connect();
    try {
      // Created by provisioning (`main.js kafka-provision`, the chart's KafkaTopics), as the
      // administrator: the service may not create topics. It waits for the ones it uses.
      const topics = [...this.dispatcher.topics(), ...publishedTopics(this.options.producer), deadLetterTopic(this.options.producer)];
      await waitForTopics(
        admin,
        topics.map((topic) => this.kafka.name(topic)),
      );
    } finally {
      await admin.disconnect();
    }
    if (this.stopped) return;
    this.relay.start();
    const topics = this.dispatcher.topics();
    if (topics.length > 0 && !this.consumer) {
      const settings = { ...defaultConsumerSettings, ...this.options.consumer };
      const consumer = await runConsumer(this.kafka.kafka, {
        groupId: this.consumerGroup,
        topics: topics.map((topic) => this.kafka.name(topic)),
        deadLetterTopic: this.deadLetterTopic,
        maxAttempts: settings.maxAttempts,
        backoff: settings.backoff,
        maxBatchSize: settings.maxBatchSize,
        // Consumed positions are stored with the effects, so a redelivery after a restart changes nothing.
        commitIntervalMs: OFFSET_COMMIT_INTERVAL_MS,
        // A batch that fails falls back to single messages; a single one waits out a database outage.
        handle: (message) =>
          waitingForDatabase(
            () => this.dispatcher.dispatchOne(message),
            (error, delay) => this.logger.warn(`Database unavailable (${error.message}); retrying the event in ${delay} ms`),
          ),
        handleBatch: (messages) => this.dispatcher.dispatchBatch(messages),
        logger: this.logger,
        observer: consumerObserver,
      });
      if (this.stopped) {
        await consumer.stop();
        return;
      }
      this.consumer = consumer;
    }
    this.started = true;
    this.markStarted();
  }

  /**
   * One admin client answers the checks while they pass. After a failed check it is dropped and
   * the next check connects afresh: its connections and metadata may still name a broker that
   * was killed and came back, as the outbox relay's producer may.
   */
  private async askBroker(): Promise<void> {
    const admin = this.checkAdmin ?? this.kafka.kafkaTriedOnce.admin();
    this.checkAdmin = admin;
    try {
      await admin.connect();
      await admin.describeCluster();
    } catch (error) {
      if (this.checkAdmin === admin) this.checkAdmin = undefined;
      void admin.disconnect().catch(() => undefined);
      throw error;
    }
  }
}

async function withTimeout(promise: Promise<void>, ms: number, message: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      promise,
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(message)), ms))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** The topics a service's relay writes to (none for a producer that is not one of the contract's services). */
function publishedTopics(producer: string): string[] {
  return (EVENT_SERVICES[producer as EventService]?.publishes ?? []).map((event) => event.topic);
}
