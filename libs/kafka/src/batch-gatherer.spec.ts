import type { KafkaMessage } from 'kafkajs';
import { BatchGatherer } from './batch-gatherer';
import { NonRetriableError, type ConsumedMessage, type RefusedMessage } from './consumed-message';

const quiet = { warn: () => undefined, error: () => undefined };

function messages(...values: string[]): KafkaMessage[] {
  return values.map((value, index) => ({
    key: null,
    value: Buffer.from(value),
    offset: String(index),
    timestamp: '0',
    attributes: 0,
    headers: {},
  }));
}

const text = (message: ConsumedMessage) => message.value?.toString() ?? '';

describe('BatchGatherer', () => {
  it('hands the chunks of several partitions that arrive in one turn to one call, each partition in order', async () => {
    const calls: string[][] = [];
    const gatherer = new BatchGatherer(async (batch) => void calls.push(batch.map((m) => `${m.partition}:${text(m)}`)), quiet);

    const outcomes = await Promise.all([
      gatherer.handle('t', 0, messages('a1', 'a2')),
      gatherer.handle('t', 1, messages('b1')),
      gatherer.handle('t', 2, messages('c1', 'c2')),
    ]);

    expect(calls).toEqual([['0:a1', '0:a2', '1:b1', '2:c1', '2:c2']]);
    expect(outcomes).toEqual([[], [], []]);
  });

  it('gives each partition the messages refused in it', async () => {
    const gatherer = new BatchGatherer(
      async (batch): Promise<RefusedMessage[]> =>
        batch
          .filter((m) => text(m).startsWith('x'))
          .map(({ topic, partition, offset }) => ({ topic, partition, offset, reason: new NonRetriableError('no') })),
      quiet,
    );

    const [first, second] = await Promise.all([
      gatherer.handle('t', 0, messages('a1', 'x-a')),
      gatherer.handle('t', 1, messages('x-b', 'b1')),
    ]);

    expect(first).toEqual([expect.objectContaining({ topic: 't', partition: 0, offset: '1' })]);
    expect(second).toEqual([expect.objectContaining({ topic: 't', partition: 1, offset: '0' })]);
  });

  it('after a failed call tries each partition on its own: only the one with the bad message falls back to single messages', async () => {
    const calls: number[][] = [];
    const gatherer = new BatchGatherer(async (batch) => {
      calls.push([...new Set(batch.map((m) => m.partition))]);
      if (batch.some((m) => text(m) === 'poison')) throw new Error('cannot handle poison');
    }, quiet);

    const outcomes = await Promise.all([
      gatherer.handle('t', 0, messages('a1', 'a2')),
      gatherer.handle('t', 1, messages('b1', 'poison')),
    ]);

    expect(calls).toEqual([[0, 1], [0], [1]]);
    expect(outcomes).toEqual([[], false]);
  });

  it('leaves a lone message to the single-message path, and does not wait for a later turn', async () => {
    const calls: string[][] = [];
    const gatherer = new BatchGatherer(async (batch) => void calls.push(batch.map(text)), quiet);

    expect(await gatherer.handle('t', 0, messages('alone'))).toBe(false);
    expect(await gatherer.handle('t', 0, messages('r1', 'r2'))).toEqual([]);
    expect(calls).toEqual([['r1', 'r2']]);
  });
});
