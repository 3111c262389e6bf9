import type { OrderStatus } from '@petstore/contracts';

/** What can happen to an order: the inventory decides, the client fulfils or cancels. */
export type OrderAction = 'approve' | 'reject' | 'deliver' | 'cancel';

/** API.md §7: placed → approved | rejected | cancelled; approved → delivered | cancelled; the rest are final. */
const TRANSITIONS: Record<OrderStatus, Partial<Record<OrderAction, OrderStatus>>> = {
  placed: { approve: 'approved', reject: 'rejected', cancel: 'cancelled' },
  approved: { deliver: 'delivered', cancel: 'cancelled' },
  rejected: {},
  delivered: {},
  cancelled: {},
};

/** Orders that may still change: the inventory holds stock for them or has yet to decide. */
export const OPEN_ORDER_STATUSES: readonly OrderStatus[] = ['placed', 'approved'];

/** The status an action leads to, or undefined when the order's status does not allow it. */
export function nextStatus(current: OrderStatus, action: OrderAction): OrderStatus | undefined {
  return TRANSITIONS[current][action];
}

export function isComplete(status: OrderStatus): boolean {
  return status === 'delivered';
}
