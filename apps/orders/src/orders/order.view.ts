import type { Order as OrderView } from '@petstore/contracts';
import type { Order } from './order.entity';
import { isComplete } from './order-transitions';

export function toOrderView(order: Order): OrderView {
  return {
    id: order.id,
    petId: order.petId,
    quantity: order.quantity,
    ...(order.shipDate && { shipDate: order.shipDate.toISOString() }),
    status: order.status,
    complete: isComplete(order.status),
    ...(order.status === 'rejected' && order.rejectionReason && { rejectionReason: order.rejectionReason }),
  };
}
