import type { KafkaMessage } from 'kafkajs';
import { toConsumedMessage, type ConsumedMessage, type RefusedMessage } from './consumed-message';
import type { RunnerLogger } from './consumer-options';

/**
 * A run of one partition's messages through `handleBatch`, all or nothing: the messages it
 * refused (to be dead-lettered), or false when it threw:
 * the caller then handles each message on its own, with the usual retries and dead-lettering,
 * so that one bad message costs its batch only the time of one attempt.
 */
export async function handledAsOne(
  handleBatch: (messages: ConsumedMessage[]) => Promise<RefusedMessage[] | void>,
  topic: string,
  partition: number,
  chunk: KafkaMessage[],
  logger: RunnerLogger,
): Promise<RefusedMessage[] | false> {
  try {
    return (
      (await handleBatch(chunk.map((message) => ({ ...toConsumedMessage(topic, partition, message), attempt: 1 })))) ??
      []
    );
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    logger.warn(
      `${topic}[${partition}]@${chunk[0].offset}..${chunk[chunk.length - 1].offset} failed as a batch ` +
        `(${reason}); handling its messages one by one`,
    );
    return false;
  }
}
