import {
  deadLetterFailures,
  decidedOnce,
  decisionsIn,
  judge,
  lostOrders,
  partitionLag,
  republishedCount,
  stockMismatches,
  stuckOrders,
  unansweredOrders,
  type Envelope,
  type Observed,
  type Order,
} from './invariants';

const order = (id: number, status: string, petId = 1, quantity = 1): Order => ({ id, petId, status, quantity });
const decision = (eventId: string, orderId: number, type = 'StockReserved'): Envelope => ({ eventId, type, payload: { orderId } });

describe('lost', () => {
  it('counts accepted orders that do not exist', () => {
    expect(lostOrders([1, 2, 3], [order(1, 'approved'), order(3, 'rejected')])).toBe(1);
  });
  it('holds when every accepted order exists', () => {
    expect(lostOrders([1, 2], [order(1, 'approved'), order(2, 'rejected')])).toBe(0);
  });
});

describe('placed once', () => {
  it('counts orders no placement returned', () => {
    expect(unansweredOrders([order(1, 'approved'), order(2, 'approved')], [1])).toBe(1);
  });
  it('holds when every order was returned by a placement', () => {
    expect(unansweredOrders([order(1, 'approved')], [1])).toBe(0);
  });
});

describe('stuck', () => {
  it('counts orders still placed', () => {
    expect(stuckOrders([order(1, 'placed'), order(2, 'approved')])).toBe(1);
  });
  it('holds when every order is decided', () => {
    expect(stuckOrders([order(1, 'rejected'), order(2, 'approved')])).toBe(0);
  });
});

describe('stock', () => {
  const pets = [{ id: 1, stock: 10 }];
  const orders = [order(1, 'approved', 1, 3), order(2, 'rejected', 1, 2), order(3, 'approved', 2, 5)];
  it('names a pet whose stock left and approved units do not add up to its stock', () => {
    expect(stockMismatches(pets, orders, new Map([[1, 6]]))).toEqual(['pet 1: stock 6 + approved 3 ≠ stocked 10']);
  });
  it('takes a pet whose stock could not be read as holding none', () => {
    expect(stockMismatches(pets, orders, new Map())).toEqual(['pet 1: stock 0 + approved 3 ≠ stocked 10']);
  });
  it('holds when they add up (rejected orders and other pets aside)', () => {
    expect(stockMismatches(pets, orders, new Map([[1, 7]]))).toEqual([]);
  });
});

describe('once', () => {
  it('counts an order decided by two events, and one whose event contradicts its status', () => {
    const { eventIdsByOrder } = decisionsIn([decision('a', 1), decision('b', 1), decision('c', 2, 'StockReservationRejected')], [1, 2], new Set());
    expect(decidedOnce([order(1, 'approved'), order(2, 'approved')], eventIdsByOrder)).toEqual({ twice: 1, disagreeing: 2 });
  });
  it('counts a decided order without a decision event', () => {
    expect(decidedOnce([order(1, 'rejected')], new Map())).toEqual({ twice: 0, disagreeing: 1 });
  });
  it('holds with one matching event per decided order, and none for a placed one', () => {
    const { eventIdsByOrder } = decisionsIn([decision('a', 1), decision('b', 2, 'StockReservationRejected')], [1, 2, 3], new Set());
    expect(decidedOnce([order(1, 'approved'), order(2, 'rejected'), order(3, 'placed')], eventIdsByOrder)).toEqual({ twice: 0, disagreeing: 0 });
  });
});

describe('decisionsIn', () => {
  it('counts the same event delivered again as a duplicate, not a second decision', () => {
    const decisions = decisionsIn([decision('a', 1), decision('a', 1)], [1], new Set());
    expect(decisions.redelivered).toBe(1);
    expect(decisions.eventIdsByOrder.get(1)).toEqual([{ eventId: 'a', type: 'StockReserved' }]);
  });
  it('leaves out refused events, other orders, other event types and unreadable messages', () => {
    const other: Envelope = { eventId: 'x', type: 'PetStatusChanged', payload: { orderId: 1 } };
    const decisions = decisionsIn([decision('forged', 1), decision('b', 9), other, undefined], [1], new Set(['forged']));
    expect(decisions).toEqual({ eventIdsByOrder: new Map(), redelivered: 0 });
  });
});

describe('republishedCount', () => {
  it('counts messages repeating an event id, skipping those without one', () => {
    expect(republishedCount(['a', 'b', 'a', undefined, 'a', undefined])).toBe(2);
    expect(republishedCount(['a', 'b'])).toBe(0);
  });
});

describe('lag', () => {
  const position = { service: 'inventory', topic: 'orders.order.v1', partition: 0, low: 0, high: 10, committed: 10 };
  it('counts a partition behind its end, and one whose group committed nothing from its start', () => {
    expect(partitionLag([{ ...position, committed: 7 }, { ...position, partition: 1, low: 4, committed: -1 }])).toEqual({
      lag: 9,
      stuck: ['inventory orders.order.v1[0] 3', 'inventory orders.order.v1[1] 6'],
    });
  });
  it('holds when every group has caught up (an empty partition with nothing committed too)', () => {
    expect(partitionLag([position, { ...position, partition: 1, low: 10, committed: -1 }])).toEqual({ lag: 0, stuck: [] });
  });
});

describe('dead letters', () => {
  const letter = (id: string, eventId?: string) => ({ id, topic: 'inventory.dead-letter.v1', eventId });
  it('fails on a dead letter that is no poison event, and on a poison event not dead-lettered', () => {
    const { failures } = deadLetterFailures([letter('1', 'ordinary'), letter('2')], new Set(['poison']), new Set());
    expect(failures).toEqual(['2 unexpected dead letter(s) on inventory.dead-letter.v1', '1 poison event(s) not on a dead-letter topic']);
  });
  it('holds when the letters are the poison events, earlier scenarios having found the older ones', () => {
    expect(deadLetterFailures([letter('1', 'new')], new Set(['old', 'new']), new Set(['old']))).toEqual({ failures: [], found: ['new'] });
  });
});

describe('judge', () => {
  const held: Observed = {
    unresolved: 0,
    acceptedIds: [1, 2],
    orders: [order(1, 'approved', 1, 2), order(2, 'rejected', 1, 1)],
    pets: [{ id: 1, stock: 5 }],
    stockLeft: new Map([[1, 3]]),
    decisions: decisionsIn([decision('a', 1), decision('b', 2, 'StockReservationRejected')], [1, 2], new Set()),
    lag: { lag: 0, stuck: [] },
    letters: [],
    poisoned: new Set(),
    deadLettered: new Set(),
    serverErrors: 0,
    failedAnswers: 3,
    zeroFailures: false,
  };

  it('holds every invariant on consistent data', () => {
    expect(judge(held)).toEqual({ failures: [], lost: 0, stuck: 0, stockMismatches: 0, deadLettered: [] });
  });

  it('lists every broken invariant in the order the report gives them', () => {
    const verdict = judge({
      ...held,
      unresolved: 1,
      acceptedIds: [1, 2, 7],
      orders: [order(1, 'approved', 1, 2), order(2, 'placed', 1, 1), order(3, 'approved', 1, 1)],
      lag: { lag: 2, stuck: ['orders inventory.stock.v1[0] 2'] },
      letters: [{ id: 'x', topic: 'orders.dead-letter.v1', eventId: 'e' }],
      serverErrors: 1,
      zeroFailures: true,
    });
    expect(verdict.failures).toEqual([
      '1 order(s) whose outcome stayed unknown',
      '1 accepted order(s) do not exist',
      '1 order(s) that no placement returned (placed twice, or its outcome never learnt)',
      '1 order(s) still placed 30 s after recovery',
      'pet 1: stock 3 + approved 3 ≠ stocked 5',
      '1 order(s) whose status does not match their one decision event',
      'consumer lag 2 30 s after recovery (orders inventory.stock.v1[0] 2)',
      '1 unexpected dead letter(s) on orders.dead-letter.v1',
      '1 answer(s) 5xx other than 503/504 (a fault showed as a bug)',
      '3 answer(s) other than 2xx where none may fail',
    ]);
    expect(verdict).toMatchObject({ lost: 1, stuck: 1, stockMismatches: 1 });
  });

  it('fails an order decided twice', () => {
    const decisions = decisionsIn([decision('a', 1), decision('c', 1), decision('b', 2, 'StockReservationRejected')], [1, 2], new Set());
    expect(judge({ ...held, decisions }).failures).toEqual(['1 order(s) decided by more than one event', '1 order(s) whose status does not match their one decision event']);
  });
});
