import { Partitioners, type Kafka, type Message, type Producer, type RecordMetadata } from 'kafkajs';

export interface ProducerOptions {
  /**
   * kafkajs-level retries of one send. Bounded so that an unreachable broker surfaces as an
   * error to the caller, which owns the durable retry (the outbox relay re-sends its batch).
   */
  retries?: number;
}

/**
 * An idempotent producer: the broker drops a retried duplicate, and with one request in
 * flight a retry cannot overtake the batch after it, so one key's messages keep their order.
 * The partitioner is named explicitly (the Java-compatible murmur2 one) so that a key maps
 * to the same partition as from any other Kafka client.
 */
export function createIdempotentProducer(kafka: Kafka, { retries = 3 }: ProducerOptions = {}): Producer {
  return kafka.producer({
    idempotent: true,
    maxInFlightRequests: 1,
    allowAutoTopicCreation: false,
    createPartitioner: Partitioners.DefaultPartitioner,
    retry: { initialRetryTime: 100, maxRetryTime: 1000, retries },
  });
}

export interface TopicMessages {
  topic: string;
  messages: Message[];
}

/** One request for every topic's messages, acknowledged by all in-sync replicas. */
export async function sendAll(producer: Producer, topicMessages: TopicMessages[]): Promise<RecordMetadata[]> {
  if (topicMessages.length === 0) return [];
  return producer.sendBatch({ topicMessages, acks: -1 });
}
