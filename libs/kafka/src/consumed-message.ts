import type { KafkaMessage } from 'kafkajs';
import { decodeHeaders } from './headers';

/** A message as the handler sees it. */
export interface ConsumedMessage {
  topic: string;
  partition: number;
  offset: string;
  key: string | null;
  value: Buffer | null;
  /** Header values decoded as UTF-8 (the first one when a header repeats). */
  headers: Record<string, string>;
  timestamp: string;
  /** 1 for the first delivery to the handler, counting in-process retries. */
  attempt: number;
}

/** Thrown by a handler for a message that no retry can fix: it goes to the dead-letter topic at once. */
export class NonRetriableError extends Error {
  override readonly name = 'NonRetriableError';
  /** The handler has logged why, with the event's context: the runner does not log it again. */
  readonly reported: boolean;

  constructor(message: string, options?: { cause?: unknown; reported?: boolean }) {
    super(message, options);
    this.reported = options?.reported ?? false;
  }
}

/**
 * A message a batch handler refused without applying it (say, an event from a producer that
 * does not own its topic): it goes to the dead-letter topic with `reason`, and the rest of its
 * batch is applied as usual.
 */
export interface RefusedMessage {
  topic: string;
  partition: number;
  offset: string;
  reason: NonRetriableError;
}

/** One fetched message of a partition, with the heartbeat of the batch it came in. */
export interface OneMessage {
  topic: string;
  partition: number;
  message: KafkaMessage;
  heartbeat(): Promise<void>;
}

export function toConsumedMessage(
  topic: string,
  partition: number,
  message: KafkaMessage,
): Omit<ConsumedMessage, 'attempt'> {
  return {
    topic,
    partition,
    offset: message.offset,
    key: message.key ? message.key.toString('utf8') : null,
    value: message.value,
    headers: decodeHeaders(message.headers),
    timestamp: message.timestamp,
  };
}
