import { ORDER_STATUSES, type OrderStatus } from '@petstore/contracts';
import { isComplete, nextStatus, OPEN_ORDER_STATUSES, type OrderAction } from './order-transitions';

const ACTIONS: OrderAction[] = ['approve', 'reject', 'deliver', 'cancel'];

describe('order transitions', () => {
  it('lets the inventory decide a placed order, or the client cancel it', () => {
    expect(nextStatus('placed', 'approve')).toBe('approved');
    expect(nextStatus('placed', 'reject')).toBe('rejected');
    expect(nextStatus('placed', 'cancel')).toBe('cancelled');
    expect(nextStatus('placed', 'deliver')).toBeUndefined();
  });

  it('lets an approved order be delivered or cancelled, and not decided again', () => {
    expect(nextStatus('approved', 'deliver')).toBe('delivered');
    expect(nextStatus('approved', 'cancel')).toBe('cancelled');
    expect(nextStatus('approved', 'approve')).toBeUndefined();
    expect(nextStatus('approved', 'reject')).toBeUndefined();
  });

  it.each<OrderStatus>(['rejected', 'delivered', 'cancelled'])('keeps a %s order as it is', (status) => {
    for (const action of ACTIONS) expect(nextStatus(status, action)).toBeUndefined();
  });

  it('counts exactly the placed and approved orders as open', () => {
    const open = ORDER_STATUSES.filter((status) => ACTIONS.some((action) => nextStatus(status, action)));
    expect([...open].sort()).toEqual([...OPEN_ORDER_STATUSES].sort());
  });

  it('calls an order complete exactly when it is delivered', () => {
    expect(ORDER_STATUSES.filter(isComplete)).toEqual(['delivered']);
  });
});
