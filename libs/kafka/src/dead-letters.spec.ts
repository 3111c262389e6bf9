import { DEAD_LETTER_HEADERS, PUBLICATION_NUMBER_HEADERS, REPLAYED_FOR_GROUP_HEADER } from './headers';
import { replayMessage, selectDeadLetters, type DeadLetter } from './dead-letters';

function letter(partition: number, offset: string, eventId: string): DeadLetter {
  return {
    partition,
    offset,
    key: Buffer.from('7'),
    value: Buffer.from('{"eventId":"x"}'),
    rawHeaders: {
      'event-id': Buffer.from(eventId),
      traceparent: Buffer.from('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01'),
      [PUBLICATION_NUMBER_HEADERS.source]: Buffer.from('00000000-0000-4000-8000-000000000001'),
      [PUBLICATION_NUMBER_HEADERS.seq]: Buffer.from('42'),
      [DEAD_LETTER_HEADERS.topic]: Buffer.from('orders.order.v1'),
      [DEAD_LETTER_HEADERS.error]: Buffer.from('boom'),
    },
    headers: {},
    eventId,
    eventType: 'OrderPlaced',
    originalTopic: 'orders.order.v1',
    originalPartition: 2,
    originalOffset: '10',
    consumerGroup: 'inventory',
    attempts: 5,
    error: 'boom',
    errorName: 'Error',
    failedAt: '2026-11-24T10:00:00.000Z',
  };
}

const A = 'aaaaaaaa-0000-4000-8000-000000000001';
const B = 'bbbbbbbb-0000-4000-8000-000000000002';
const C = 'cccccccc-0000-4000-8000-000000000003';
const letters = [letter(0, '3', A), letter(1, '3', B), letter(1, '4', C)];

describe('selectDeadLetters', () => {
  it('finds entries by position, by event id (any case) and by an offset only one partition has, in topic order', () => {
    expect(selectDeadLetters(letters, ['1:4', A.toUpperCase()]).map((one) => one.eventId)).toEqual([A, C]);
    expect(selectDeadLetters(letters, ['4']).map((one) => one.eventId)).toEqual([C]);
  });

  it('refuses a selector that names nothing or an offset of several partitions', () => {
    expect(() => selectDeadLetters(letters, ['2:3'])).toThrow('No dead letter matches "2:3"');
    expect(() => selectDeadLetters(letters, ['3'])).toThrow('Offset 3 is in several partitions (0:3, 1:3): use <partition>:<offset>');
  });
});

describe('replayMessage', () => {
  it('keeps key, value and original headers, drops the dead-letter and numbering headers, and names its group', () => {
    const [one] = letters;
    const message = replayMessage(one);
    expect(message.partition).toBe(2);
    expect(message.key).toBe(one.key);
    expect(message.value).toBe(one.value);
    expect(message.headers).toEqual({
      'event-id': one.rawHeaders['event-id'],
      traceparent: one.rawHeaders['traceparent'],
      [REPLAYED_FOR_GROUP_HEADER]: 'inventory',
    });
  });
});
