import { backoffDelay } from '@petstore/backoff';
import type { Consumer, ConsumerRunConfig } from 'kafkajs';
import type { RunnerLogger } from './consumer-options';

/** The part of a kafkajs consumer that starting it again uses. */
export type RestartableConsumer = Pick<Consumer, 'on' | 'events' | 'stop' | 'connect' | 'run'>;

/**
 * Between restarts after crashes in a row: half a second, then 1 s, then 2 s; a group join starts
 * it over. No longer: each run kafkajs cannot start already retries for seconds before it crashes,
 * and a longer wait would only delay the consumer after the broker is back.
 */
const CRASH_BACKOFF = { initialMs: 500, maxMs: 2_000 };

export interface ConsumerRestartOptions {
  groupId: string;
  logger: RunnerLogger;
  /** Called just before each new run: what belonged to the previous runner is dropped. */
  beforeRun(): void;
}

/**
 * The one place a consumer is started again: after any crash, and after kafkajs lost its group
 * membership and did not rejoin (membership-watch.ts). kafkajs's own restart after a retriable
 * crash is off (`restartOnFailure` in consumer-runner.ts): its timer starts a runner without
 * looking whether the consumer runs again already, so a restart of ours in between left two
 * runners on one consumer, two members of the group in one process, and the group rebalanced
 * every few seconds from then on (seen after two of three brokers were down). Here at most one
 * restart is pending or under way; a cause that arrives meanwhile makes one more restart after
 * it, so a crash of the runner just started is not lost.
 */
export class ConsumerRestarts {
  private timer?: NodeJS.Timeout;
  private underWay?: Promise<void>;
  private again = false;
  /** Crashes and failed starts since the consumer last joined its group. */
  private failures = 0;
  private cancelled = false;

  constructor(
    private readonly consumer: RestartableConsumer,
    private readonly runConfig: ConsumerRunConfig,
    private readonly options: ConsumerRestartOptions,
  ) {
    consumer.on(consumer.events.CRASH, ({ payload }) => {
      options.logger.error(`consumer group ${options.groupId} crashed: ${payload.error.message}`);
      this.failures += 1;
      this.request(this.crashDelay());
    });
    consumer.on(consumer.events.GROUP_JOIN, () => (this.failures = 0));
  }

  /** kafkajs lost the group membership and did not rejoin: the consumer leaves and joins again as a new member, at once. */
  membershipLost(): void {
    this.request(0);
  }

  /** No restart from now on; resolves once one under way has finished. */
  cancel(): Promise<void> {
    this.cancelled = true;
    clearTimeout(this.timer);
    return this.underWay ?? Promise.resolve();
  }

  /** The wait after the crashes (or failed starts) since the last join. */
  private crashDelay(): number {
    return backoffDelay(Math.max(1, this.failures), CRASH_BACKOFF);
  }

  private request(delayMs: number): void {
    if (this.cancelled) return;
    if (this.underWay) {
      this.again = true;
      return;
    }
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.underWay = this.restart();
    }, delayMs);
  }

  private async restart(): Promise<void> {
    const { groupId, logger } = this.options;
    try {
      // After a crash kafkajs has stopped and disconnected the consumer already; after a lost
      // membership it still runs, and stopping it leaves the group. What was handled since the
      // last commit comes again and is dropped as copies.
      await this.consumer.stop();
      if (this.cancelled) return;
      await this.consumer.connect();
      this.options.beforeRun();
      logger.warn(`starting consumer group ${groupId} again`);
      await this.consumer.run(this.runConfig);
    } catch (error) {
      this.failures += 1;
      this.again = true;
      logger.error(`starting consumer group ${groupId} again failed: ${(error as Error).message}`);
    } finally {
      this.underWay = undefined;
      if (this.again) {
        this.again = false;
        this.request(this.crashDelay());
      }
    }
  }
}
