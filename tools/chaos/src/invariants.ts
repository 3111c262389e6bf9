// The invariants checked after every scenario, as pure functions of what the run collected
// through the API and on the topics (docs/RELIABILITY.md says what each one means).

/** The stated bound: every accepted order is decided, and every partition caught up, this long after recovery. */
export const SETTLE_SECONDS = 30;

/** Which topics each service's consumer group reads (from the services' event handlers). */
export const SUBSCRIPTIONS: Record<string, string[]> = {
  catalog: ['inventory.pet-status.v1'],
  orders: ['inventory.stock.v1', 'catalog.pet.v1'],
  inventory: ['orders.order.v1', 'catalog.pet.v1'],
};
export const DEAD_LETTER_TOPICS = Object.keys(SUBSCRIPTIONS).map((service) => `${service}.dead-letter.v1`);
const DECISIONS = new Set(['StockReserved', 'StockReservationRejected']);

/** An event as the services publish it (libs/contracts), as far as the checks read it. */
export interface Envelope {
  eventId: string;
  type: string;
  producer?: string;
  payload?: { orderId?: unknown; petId?: unknown };
  [field: string]: unknown;
}

/** An order as the API lists it. */
export interface Order {
  id: number;
  petId: number;
  status: string;
  quantity: number;
}

export interface DecisionEvent {
  eventId: string;
  type: string;
}

export interface Decisions {
  /** The distinct decision events of each order (by order id). */
  eventIdsByOrder: Map<unknown, DecisionEvent[]>;
  /** Messages that were a decision event delivered again (what the consumers absorb by event id). */
  redelivered: number;
}

/**
 * The decisions of inventory among `envelopes`, for the given orders: an event with an effect
 * twice would be a second distinct event of its order. Events in `ignored` (forged ones the
 * consumers refused) are not counted.
 */
export function decisionsIn(envelopes: (Envelope | undefined)[], orderIds: unknown[], ignored: ReadonlySet<string>): Decisions {
  const wanted = new Set(orderIds);
  const eventIdsByOrder = new Map<unknown, DecisionEvent[]>();
  const seen = new Set<string>();
  let redelivered = 0;
  for (const envelope of envelopes) {
    if (!envelope || !DECISIONS.has(envelope.type) || !wanted.has(envelope.payload?.orderId) || ignored.has(envelope.eventId)) continue;
    if (seen.has(envelope.eventId)) {
      redelivered += 1;
      continue;
    }
    seen.add(envelope.eventId);
    const ids = eventIdsByOrder.get(envelope.payload?.orderId) ?? [];
    ids.push({ eventId: envelope.eventId, type: envelope.type });
    eventIdsByOrder.set(envelope.payload?.orderId, ids);
  }
  return { eventIdsByOrder, redelivered };
}

/** How many messages repeat an event id already seen (messages without one are skipped). */
export function republishedCount(eventIds: (string | undefined)[]): number {
  const seen = new Set<string>();
  let again = 0;
  for (const eventId of eventIds) {
    if (!eventId) continue;
    if (seen.has(eventId)) again += 1;
    seen.add(eventId);
  }
  return again;
}

/** A partition a group reads: its offsets, and the group's committed one (negative: none yet). */
export interface PartitionPosition {
  service: string;
  topic: string;
  partition: number;
  low: number;
  high: number;
  committed: number;
}

export interface Lag {
  lag: number;
  /** `<service> <topic>[<partition>] <behind>` of each partition behind. */
  stuck: string[];
}

/** Sum of (end offset − committed offset); a group that committed nothing yet is behind from the partition's start. */
export function partitionLag(partitions: PartitionPosition[]): Lag {
  let lag = 0;
  const stuck: string[] = [];
  for (const { service, topic, partition, low, high, committed } of partitions) {
    const behind = high - (committed < 0 ? low : committed);
    if (behind > 0) stuck.push(`${service} ${topic}[${partition}] ${behind}`);
    lag += Math.max(behind, 0);
  }
  return { lag, stuck };
}

/** A message on a dead-letter topic: where it lies, and the event id it carried (when it had one). */
export interface DeadLetter {
  id: string;
  topic: string;
  eventId?: string;
}

/** lost: accepted orders (ids the client returned) that do not exist. */
export function lostOrders(acceptedIds: number[], orders: Order[]): number {
  const existing = new Set(orders.map((order) => order.id));
  return acceptedIds.filter((id) => !existing.has(id)).length;
}

/** placed once: orders no placement returned (each placement kept one Idempotency-Key across its retries). */
export function unansweredOrders(orders: Order[], acceptedIds: number[]): number {
  const accepted = new Set(acceptedIds);
  return orders.filter((order) => !accepted.has(order.id)).length;
}

/** stuck: orders still `placed`. */
export function stuckOrders(orders: Order[]): number {
  return orders.filter((order) => order.status === 'placed').length;
}

/** stock: for each pet whose stock left + approved units ≠ units stocked, why. */
export function stockMismatches(pets: { id: number; stock: number }[], orders: Order[], stockLeft: Map<number, number>): string[] {
  const mismatches: string[] = [];
  for (const pet of pets) {
    const approvedUnits = orders.filter((o) => o.petId === pet.id && o.status === 'approved').reduce((sum, o) => sum + o.quantity, 0);
    const quantity = stockLeft.get(pet.id) ?? 0;
    if (quantity + approvedUnits !== pet.stock) mismatches.push(`pet ${pet.id}: stock ${quantity} + approved ${approvedUnits} ≠ stocked ${pet.stock}`);
  }
  return mismatches;
}

/** once: orders with more than one decision event, and decided orders whose one event does not match their status. */
export function decidedOnce(orders: Order[], eventIdsByOrder: Map<unknown, DecisionEvent[]>): { twice: number; disagreeing: number } {
  let twice = 0;
  let disagreeing = 0;
  for (const order of orders) {
    const decisions = eventIdsByOrder.get(order.id) ?? [];
    if (decisions.length > 1) twice += 1;
    const expected = ({ approved: 'StockReserved', rejected: 'StockReservationRejected' } as Record<string, string>)[order.status];
    if (expected && (decisions.length !== 1 || decisions[0].type !== expected)) disagreeing += 1;
  }
  return { twice, disagreeing };
}

/**
 * dead letters: `letters` (the ones this scenario added) hold the poison events and nothing else,
 * and every poison event not found by an earlier scenario (`deadLettered`) is among them.
 * Answers the failures and the poison events found now.
 */
export function deadLetterFailures(letters: DeadLetter[], poisoned: ReadonlySet<string>, deadLettered: ReadonlySet<string>): { failures: string[]; found: string[] } {
  const failures: string[] = [];
  const unexpected = letters.filter((letter) => !letter.eventId || !poisoned.has(letter.eventId));
  if (unexpected.length > 0) failures.push(`${unexpected.length} unexpected dead letter(s) on ${[...new Set(unexpected.map((l) => l.topic))].join(', ')}`);
  const missing = [...poisoned].filter((eventId) => !deadLettered.has(eventId)).filter((eventId) => !letters.some((letter) => letter.eventId === eventId));
  if (missing.length > 0) failures.push(`${missing.length} poison event(s) not on a dead-letter topic`);
  const found = letters.flatMap((letter) => (letter.eventId && poisoned.has(letter.eventId) ? [letter.eventId] : []));
  return { failures, found };
}

/** Everything the run collected after one scenario's recovery. */
export interface Observed {
  /** Placements whose outcome stayed unknown. */
  unresolved: number;
  /** The ids of the orders the load's placements returned. */
  acceptedIds: number[];
  /** Every order of the scenario's pets. */
  orders: Order[];
  pets: { id: number; stock: number }[];
  /** Stock left per pet id. */
  stockLeft: Map<number, number>;
  decisions: Decisions;
  lag: Lag;
  /** The dead letters this scenario added. */
  letters: DeadLetter[];
  poisoned: ReadonlySet<string>;
  /** Poison events found on a dead-letter topic by earlier scenarios. */
  deadLettered: ReadonlySet<string>;
  serverErrors: number;
  failedAnswers: number;
  zeroFailures: boolean;
}

export interface Verdict {
  failures: string[];
  lost: number;
  stuck: number;
  stockMismatches: number;
  /** Poison events found on a dead-letter topic now. */
  deadLettered: string[];
}

/** Every invariant over what was collected, failures in the order docs/RELIABILITY.md lists the invariants. */
export function judge(observed: Observed): Verdict {
  const { orders, acceptedIds } = observed;
  const failures: string[] = [];
  if (observed.unresolved > 0) failures.push(`${observed.unresolved} order(s) whose outcome stayed unknown`);
  const lost = lostOrders(acceptedIds, orders);
  const stuck = stuckOrders(orders);
  if (lost > 0) failures.push(`${lost} accepted order(s) do not exist`);
  const unanswered = unansweredOrders(orders, acceptedIds);
  if (unanswered > 0) failures.push(`${unanswered} order(s) that no placement returned (placed twice, or its outcome never learnt)`);
  if (stuck > 0) failures.push(`${stuck} order(s) still placed ${SETTLE_SECONDS} s after recovery`);
  const mismatches = stockMismatches(observed.pets, orders, observed.stockLeft);
  failures.push(...mismatches);
  const { twice, disagreeing } = decidedOnce(orders, observed.decisions.eventIdsByOrder);
  if (twice > 0) failures.push(`${twice} order(s) decided by more than one event`);
  if (disagreeing > 0) failures.push(`${disagreeing} order(s) whose status does not match their one decision event`);
  if (observed.lag.lag > 0) failures.push(`consumer lag ${observed.lag.lag} ${SETTLE_SECONDS} s after recovery (${observed.lag.stuck.join(', ')})`);
  const letters = deadLetterFailures(observed.letters, observed.poisoned, observed.deadLettered);
  failures.push(...letters.failures);
  if (observed.serverErrors > 0) failures.push(`${observed.serverErrors} answer(s) 5xx other than 503/504 (a fault showed as a bug)`);
  if (observed.zeroFailures && observed.failedAnswers > 0) failures.push(`${observed.failedAnswers} answer(s) other than 2xx where none may fail`);
  return { failures, lost, stuck, stockMismatches: mismatches.length, deadLettered: letters.found };
}
