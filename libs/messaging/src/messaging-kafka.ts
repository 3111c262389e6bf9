import { assertValidNamespace, createKafkaClient, namespaced, type LogLevel } from '@petstore/kafka';
import type { Kafka } from 'kafkajs';

/** The process's Kafka client and the namespace every topic and group name gets. */
export class MessagingKafka {
  readonly kafka: Kafka;
  readonly namespace: string;

  constructor(options: { clientId: string; brokers: string[] | string; namespace?: string; logLevel?: LogLevel }) {
    this.namespace = options.namespace ?? '';
    assertValidNamespace(this.namespace);
    this.kafka = createKafkaClient({
      clientId: namespaced(this.namespace, options.clientId),
      brokers: options.brokers,
      logLevel: options.logLevel,
    });
  }

  /** The physical name of a contract topic or consumer group. */
  name(name: string): string {
    return namespaced(this.namespace, name);
  }
}
