import { decide } from './saga-floor-reserve';

describe('the saga floor reserving stock', () => {
  it('approves orders in turn while the pet has the units, and rejects the rest', () => {
    let id = 0;
    const orders = [
      { eventId: 'a', orderId: 1, petId: 7, quantity: 2 },
      { eventId: 'b', orderId: 2, petId: 7, quantity: 2 },
      { eventId: 'c', orderId: 3, petId: 7, quantity: 1 },
      { eventId: 'd', orderId: 4, petId: 9, quantity: 1 },
    ];
    const { stock, reservations, answers } = decide(new Map([[7, 3]]), orders, () => `event-${++id}`);
    expect([...stock]).toEqual([[7, 0]]);
    expect(reservations).toEqual([
      [1, 7, 2, 'reserved'],
      [2, 7, 2, 'rejected'],
      [3, 7, 1, 'reserved'],
      [4, 9, 1, 'rejected'],
    ]);
    expect(answers[1]).toEqual(['7', JSON.stringify({ eventId: 'event-2', orderId: 2, status: 'rejected', reason: 'INSUFFICIENT_STOCK' })]);
    expect(JSON.parse(answers[0][1])).toMatchObject({ orderId: 1, status: 'approved', reason: null });
  });
});
