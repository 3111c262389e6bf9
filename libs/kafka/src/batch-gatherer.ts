import type { KafkaMessage } from 'kafkajs';
import { handledAsOne } from './batch-fallback';
import { toConsumedMessage, type ConsumedMessage, type RefusedMessage } from './consumed-message';
import type { RunnerLogger } from './consumer-options';

type BatchHandler = (messages: ConsumedMessage[]) => Promise<RefusedMessage[] | void>;

/** What became of a partition's chunk: the messages refused, or false when each of its messages is to be handled on its own. */
export type ChunkOutcome = RefusedMessage[] | false;

interface WaitingChunk {
  topic: string;
  partition: number;
  messages: KafkaMessage[];
  settle(outcome: ChunkOutcome): void;
}

/**
 * Gathers the chunks of several partitions that reach the runner together, the batches of one
 * fetch, into one `handleBatch` call (one transaction for the whole fetch, not one per
 * partition: twelve partitions over two replicas make many small batches). kafkajs hands a
 * fetch's batches to its workers within one turn of the event loop, so gathering until the
 * next turn waits for nothing that is not already here. Each partition's messages stay in
 * order. When the gathered call throws, each chunk is tried on its own (batch-fallback.ts), so
 * one bad message costs the other partitions one attempt.
 */
export class BatchGatherer {
  private waiting: WaitingChunk[] = [];

  constructor(
    private readonly handleBatch: BatchHandler,
    private readonly logger: RunnerLogger,
  ) {}

  /** Resolves once the chunk was handled with whatever else arrived in the same turn. */
  handle(topic: string, partition: number, messages: KafkaMessage[]): Promise<ChunkOutcome> {
    return new Promise((settle) => {
      if (this.waiting.push({ topic, partition, messages, settle }) === 1) setImmediate(() => void this.flush());
    });
  }

  private async flush(): Promise<void> {
    const gathered = this.waiting;
    this.waiting = [];
    if (gathered.length === 1) {
      const [only] = gathered;
      // A lone message goes the single-message way (retries, waiting out a database outage) at once.
      only.settle(only.messages.length > 1 && (await this.alone(only)));
      return;
    }
    let refused: RefusedMessage[];
    try {
      refused = (await this.handleBatch(gathered.flatMap(consumedMessages))) ?? [];
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      this.logger.warn(`the batches of ${gathered.length} partitions failed together (${reason}); handling each partition's on its own`);
      await Promise.all(gathered.map(async (one) => one.settle(await this.alone(one))));
      return;
    }
    for (const one of gathered) {
      one.settle(refused.filter((message) => message.topic === one.topic && message.partition === one.partition));
    }
  }

  private alone({ topic, partition, messages }: WaitingChunk): Promise<ChunkOutcome> {
    return handledAsOne(this.handleBatch, topic, partition, messages, this.logger);
  }
}

function consumedMessages({ topic, partition, messages }: WaitingChunk): ConsumedMessage[] {
  return messages.map((message) => ({ ...toConsumedMessage(topic, partition, message), attempt: 1 }));
}
