import { findEventDefinition, serializeEnvelope, type EventEnvelope } from '@petstore/contracts';
import { createIdempotentProducer, createKafkaClient, LogLevel, namespaced } from '@petstore/kafka';
import type { Producer } from 'kafkajs';
import type { ProbedMessage } from './event-probe';
import { testKafkaBrokers } from './test-environment';

/**
 * Puts events on the suite's namespaced topics as their producer would: seeds what another
 * service would have published (say, the catalog's PetCreated) and replays a delivery.
 */
export class EventPublisher {
  private constructor(
    private readonly namespace: string,
    private readonly producer: Producer,
  ) {}

  static async start(namespace: string): Promise<EventPublisher> {
    const kafka = createKafkaClient({ clientId: `${namespace}publisher`, brokers: testKafkaBrokers(), logLevel: LogLevel.ERROR });
    const producer = createIdempotentProducer(kafka);
    await producer.connect();
    return new EventPublisher(namespace, producer);
  }

  async publish(...envelopes: EventEnvelope[]): Promise<void> {
    for (const envelope of envelopes) {
      const definition = findEventDefinition(envelope.type);
      if (!definition) throw new Error(`Unknown event type ${envelope.type}`);
      await this.producer.send({
        topic: namespaced(this.namespace, definition.topic),
        acks: -1,
        messages: [{ key: envelope.key, value: serializeEnvelope(envelope) }],
      });
    }
  }

  /**
   * Writes `envelope` with `headers` to the topic and partition where the probe saw `original`,
   * as a tool holding that topic's credentials could: the forged events of the trust tests.
   */
  async writeBack(original: ProbedMessage, envelope: EventEnvelope, headers: Record<string, string>): Promise<void> {
    await this.producer.send({
      topic: namespaced(this.namespace, original.topic),
      acks: -1,
      messages: [{ partition: original.partition, key: original.key, value: serializeEnvelope(envelope), headers }],
    });
  }

  async stop(): Promise<void> {
    await this.producer.disconnect();
  }
}
