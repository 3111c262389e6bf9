import { isDatabaseUnavailable } from '@petstore/database';
import { backoffDelay, sleep } from '@petstore/backoff';

/**
 * An event whose handler fails because the database is out of reach (a restart, a failover)
 * has nothing wrong with it: it must not use up its attempts and end on the dead-letter topic,
 * where an order would stay `placed` forever. Such failures are retried here, with backoff up
 * to 2 s, until the database answers; any other error goes to the consumer's own retries.
 */
export async function waitingForDatabase<T>(work: () => Promise<T>, onWait?: (error: Error, delayMs: number) => void): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (!isDatabaseUnavailable(error)) throw error;
      const delay = backoffDelay(attempt, { initialMs: 100, maxMs: 2000 });
      onWait?.(error as Error, delay);
      await sleep(delay);
    }
  }
}
