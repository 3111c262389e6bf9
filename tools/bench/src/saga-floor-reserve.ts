// The saga floor's inventory decision, pure: a batch of orders against the stock it locked.

export interface FloorOrder {
  eventId: string;
  orderId: number;
  petId: number;
  quantity: number;
}
export interface FloorAnswer {
  eventId: string;
  orderId: number;
  status: 'approved' | 'rejected';
  reason: string | null;
}

/** Each order in turn takes its units if the pet has them; the stock left, the reservation rows and the answers (key, JSON). */
export function decide(stock: Map<number, number>, orders: FloorOrder[], newEventId: () => string) {
  const left = new Map(stock);
  const reservations: [number, number, number, 'reserved' | 'rejected'][] = [];
  const answers: [string, string][] = [];
  for (const order of orders) {
    const free = left.get(order.petId);
    const approved = free !== undefined && free >= order.quantity;
    if (approved) left.set(order.petId, free - order.quantity);
    reservations.push([order.orderId, order.petId, order.quantity, approved ? 'reserved' : 'rejected']);
    const answer: FloorAnswer = { eventId: newEventId(), orderId: order.orderId, status: approved ? 'approved' : 'rejected', reason: approved ? null : 'INSUFFICIENT_STOCK' };
    answers.push([String(order.petId), JSON.stringify(answer)]);
  }
  return { stock: left, reservations, answers };
}
