import { DEAD_LETTER_ERROR_MAX_LENGTH } from '@petstore/contracts';
import type { Kafka, Producer } from 'kafkajs';
import type { OneMessage } from './consumed-message';
import { DEAD_LETTER_HEADERS } from './headers';
import { createIdempotentProducer } from './producer';

/**
 * Sends a message no attempt could handle to the dead-letter topic: key, value and headers as
 * they came, plus where it came from and why it failed (DEAD_LETTER_HEADERS), acknowledged by all
 * in-sync replicas before its offset is resolved.
 */
export class DeadLetterProducer {
  private readonly producer: Producer;

  constructor(
    kafka: Kafka,
    private readonly deadLetterTopic: string,
    private readonly groupId: string,
  ) {
    this.producer = createIdempotentProducer(kafka);
  }

  connect(): Promise<void> {
    return this.producer.connect();
  }

  disconnect(): Promise<void> {
    return this.producer.disconnect();
  }

  async send({ topic, partition, message }: OneMessage, reason: Error, attempts: number): Promise<void> {
    await this.producer.send({
      topic: this.deadLetterTopic,
      acks: -1,
      messages: [
        {
          key: message.key,
          value: message.value,
          headers: {
            ...message.headers,
            [DEAD_LETTER_HEADERS.topic]: topic,
            [DEAD_LETTER_HEADERS.partition]: String(partition),
            [DEAD_LETTER_HEADERS.offset]: message.offset,
            [DEAD_LETTER_HEADERS.group]: this.groupId,
            [DEAD_LETTER_HEADERS.attempts]: String(attempts),
            [DEAD_LETTER_HEADERS.error]: reason.message.slice(0, DEAD_LETTER_ERROR_MAX_LENGTH),
            [DEAD_LETTER_HEADERS.errorName]: reason.name,
            [DEAD_LETTER_HEADERS.failedAt]: new Date().toISOString(),
          },
        },
      ],
    });
  }
}
