import type { Consumer, EachBatchPayload } from 'kafkajs';
import type { RunnerLogger } from './consumer-options';

type CommitHandles = Pick<EachBatchPayload, 'commitOffsetsIfNecessary' | 'uncommittedOffsets'>;

/**
 * kafkajs commits after every batch whatever its interval says. With an interval the runner
 * commits instead, after a fetch once the interval has passed: a batch costs no commit round
 * trip, and the idle fetches (one per maxWaitTimeInMs) commit what the last batches left. A stop
 * commits everything resolved before the member leaves its group.
 */
export class OffsetCommits {
  /** kafkajs's only handles on its resolved offsets, taken from the latest batch. */
  private handles?: CommitHandles;
  private committing?: Promise<void>;

  constructor(
    consumer: Consumer,
    private readonly onInterval: boolean,
    private readonly groupId: string,
    private readonly logger: RunnerLogger,
    /** Every interval commit's outcome: its error, or undefined when it went through. */
    private readonly onOutcome: (error?: Error) => void = () => undefined,
  ) {
    if (onInterval) consumer.on(consumer.events.FETCH, () => this.commitIfDue());
  }

  /** The run config that leaves committing to this (kafkajs's own after every batch otherwise). */
  runConfig(commitIntervalMs: number | undefined): { autoCommit?: false; autoCommitInterval?: number } {
    return this.onInterval ? { autoCommit: false, autoCommitInterval: commitIntervalMs } : {};
  }

  /** Keeps the latest batch's handles on the resolved offsets. */
  seen(batch: CommitHandles): void {
    this.handles = batch;
  }

  /**
   * Drops the handles of a runner that is gone: they commit under its member id, which the
   * coordinator no longer knows, so every interval would fail until a batch came again.
   */
  forget(): void {
    this.handles = undefined;
  }

  /** Commits every resolved offset now, while the member still holds its partitions. */
  async commitAll(): Promise<void> {
    await this.committing;
    const handles = this.handles;
    if (!handles) return;
    const offsets = handles.uncommittedOffsets();
    if (offsets.topics.length === 0) return;
    await handles
      .commitOffsetsIfNecessary(offsets)
      .catch((error: Error) => this.logger.warn(`committing the offsets of ${this.groupId} failed: ${error.message}`));
  }

  private commitIfDue(): void {
    const handles = this.handles;
    if (!handles || this.committing) return;
    this.committing = handles
      .commitOffsetsIfNecessary()
      .then(
        () => this.onOutcome(),
        (error: Error) => {
          this.logger.warn(`committing the offsets of ${this.groupId} failed: ${error.message}`);
          this.onOutcome(error);
        },
      )
      .finally(() => (this.committing = undefined));
  }
}
