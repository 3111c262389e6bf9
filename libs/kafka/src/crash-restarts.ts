import { backoffDelay } from '@petstore/backoff';
import type { Consumer, ConsumerRunConfig } from 'kafkajs';
import type { RunnerLogger } from './consumer-options';

/**
 * kafkajs restarts a crashed consumer by itself only after retriable errors. After any other
 * crash (seen: "Failed to find group coordinator" while the broker restarts) the member is gone
 * for good and its partitions stall, so it is started again here, with backoff, until it runs.
 * Returns what cancels a pending restart (on stop).
 */
export function restartAfterCrashes(
  consumer: Consumer,
  runConfig: ConsumerRunConfig,
  { groupId, logger, stopping }: { groupId: string; logger: RunnerLogger; stopping: () => boolean },
): () => void {
  let timer: NodeJS.Timeout | undefined;
  const restart = (attempt: number): void => {
    timer = setTimeout(
      async () => {
        if (stopping()) return;
        try {
          await consumer.connect();
          await consumer.run(runConfig);
          logger.warn(`consumer group ${groupId} restarted after a crash`);
        } catch (error) {
          logger.error(`restarting consumer group ${groupId} failed: ${(error as Error).message}`);
          restart(attempt + 1);
        }
      },
      backoffDelay(attempt, { initialMs: 500, maxMs: 10_000 }),
    );
  };
  consumer.on(consumer.events.CRASH, ({ payload }) => {
    logger.error(`consumer group ${groupId} crashed (restart: ${payload.restart}): ${payload.error.message}`);
    if (!payload.restart && !stopping()) restart(1);
  });
  return () => clearTimeout(timer);
}
