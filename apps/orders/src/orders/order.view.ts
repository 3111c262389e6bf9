import type { Order as OrderView, OrderStatus, RejectionReason } from '@petstore/contracts';
import type { Order } from './order.entity';
import { isComplete } from './order-transitions';

export function toOrderView(order: Order): OrderView {
  return {
    id: order.id,
    petId: order.petId,
    quantity: order.quantity,
    ...(order.shipDate && { shipDate: order.shipDate.toISOString() }),
    ...statusView(order.status, order.rejectionReason),
  };
}

/** The fields of an order's view that follow from its status: a reason only for a rejection. */
export function statusView(
  status: OrderStatus,
  rejectionReason: RejectionReason | null | undefined,
): Pick<OrderView, 'status' | 'complete' | 'rejectionReason'> {
  return {
    status,
    complete: isComplete(status),
    ...(status === 'rejected' && rejectionReason && { rejectionReason }),
  };
}
