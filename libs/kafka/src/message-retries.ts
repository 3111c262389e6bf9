import { backoffDelay, sleep, type Backoff } from '@petstore/backoff';
import { NonRetriableError, toConsumedMessage, type ConsumedMessage, type OneMessage } from './consumed-message';
import type { ConsumerObserver, RunnerLogger } from './consumer-options';
import type { DeadLetterProducer } from './dead-letter-producer';

export interface RetryPolicy {
  maxAttempts: number;
  backoff: Backoff;
  logger: RunnerLogger;
  observer: ConsumerObserver;
  deadLetters: DeadLetterProducer;
}

/**
 * Hands one message to `handle`, retrying in process with backoff (heartbeating between
 * attempts); after the last attempt, or at once for a NonRetriableError, the message goes to the
 * dead-letter topic, so one bad message never blocks its partition.
 */
export async function handleWithRetries(
  payload: OneMessage,
  handle: (message: ConsumedMessage) => Promise<void>,
  policy: RetryPolicy,
): Promise<void> {
  const { maxAttempts, backoff, logger, observer } = policy;
  const base = toConsumedMessage(payload.topic, payload.partition, payload.message);
  for (let attempt = 1; ; attempt++) {
    try {
      await handle({ ...base, attempt });
      return;
    } catch (error) {
      if (error instanceof NonRetriableError || attempt >= maxAttempts) {
        const reason = error instanceof Error ? error : new Error(String(error));
        if (!(error instanceof NonRetriableError && error.reported)) {
          logger.error(
            `dead-lettering ${payload.topic}[${payload.partition}]@${base.offset} after ${attempt} attempt(s): ${reason.message}`,
          );
        }
        await deadLetter(payload, reason, attempt, policy);
        return;
      }
      const delay = backoffDelay(attempt, backoff);
      const reason = error instanceof Error ? error.message : String(error);
      observer.retried?.({ topic: payload.topic, partition: payload.partition });
      logger.warn(
        `${payload.topic}[${payload.partition}]@${base.offset} failed (attempt ${attempt}/${maxAttempts}), ` +
          `retrying in ${delay} ms: ${reason}`,
      );
      await sleep(delay);
      await payload.heartbeat();
    }
  }
}

/** Sends the message to the dead-letter topic and counts it (the caller logs why); its offset may then be resolved. */
export async function deadLetter(
  payload: OneMessage,
  reason: Error,
  attempts: number,
  { observer, deadLetters }: Pick<RetryPolicy, 'observer' | 'deadLetters'>,
): Promise<void> {
  observer.deadLettered?.({ topic: payload.topic, partition: payload.partition });
  await deadLetters.send(payload, reason, attempts);
}
