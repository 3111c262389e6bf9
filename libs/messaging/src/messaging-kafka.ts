import { CLIENT_RETRY, assertValidNamespace, createKafkaClient, namespaced, type LogLevel } from '@petstore/kafka';
import type { Kafka } from 'kafkajs';

/** The process's Kafka client and the namespace every topic and group name gets. */
export class MessagingKafka {
  readonly kafka: Kafka;
  /**
   * The same client with no retries of its own, for callers that wait between attempts
   * themselves (the start, the readiness check): a broker that is down fails each attempt at once.
   */
  readonly kafkaTriedOnce: Kafka;
  readonly namespace: string;

  constructor(options: { clientId: string; brokers: string[] | string; namespace?: string; logLevel?: LogLevel }) {
    this.namespace = options.namespace ?? '';
    assertValidNamespace(this.namespace);
    const client = { clientId: namespaced(this.namespace, options.clientId), brokers: options.brokers, logLevel: options.logLevel };
    this.kafka = createKafkaClient(client);
    this.kafkaTriedOnce = createKafkaClient({ ...client, retry: { ...CLIENT_RETRY, retries: 0 } });
  }

  /** The physical name of a contract topic or consumer group. */
  name(name: string): string {
    return namespaced(this.namespace, name);
  }
}
