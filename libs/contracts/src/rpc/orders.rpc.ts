import type { NewOrder, Order, OrderStatus } from '../model';
import type { ById, PageQuery, RpcRequest } from './rpc';

export const OrdersPatterns = {
  placeOrder: { cmd: 'orders.place' },
  listOrders: { cmd: 'orders.list' },
  getOrder: { cmd: 'orders.get' },
  /** getOrder held until the order leaves `placed` or the wait elapses (`Prefer: wait`, API.md §9). */
  awaitOrder: { cmd: 'orders.await' },
  fulfilOrder: { cmd: 'orders.fulfil' },
  cancelOrder: { cmd: 'orders.cancel' },
} as const;

export interface IdempotencyKey {
  /** Keys are scoped to the API key that sent them (its stable name, never the secret). */
  scope: string;
  /** The key with surrounding quotes removed. */
  key: string;
  /** Canonical JSON of the request body: same value in any key order hashes the same. */
  fingerprint: string;
}

/** `Prefer: wait=<seconds>` as the gateway parsed it: 1–10 (larger values already capped at 10). */
export interface WaitForDecision {
  waitSeconds?: number;
}

/**
 * Set when the answer was held as asked: the seconds of the applied wait, which the gateway
 * echoes as `Preference-Applied: wait=<seconds>`. Absent when no wait was asked, on a replayed
 * idempotency key (answered at once), or when the service already holds as many answers as it
 * may (answered at once, the preference not applied).
 */
export interface WaitOutcome {
  waitApplied?: number;
}

export interface PlaceOrderCommand extends RpcRequest, WaitForDecision {
  order: NewOrder;
  idempotency?: IdempotencyKey;
}

export interface PlaceOrderResult extends WaitOutcome {
  order: Order;
  /** True when an earlier request with the same idempotency key is answered again. */
  replayed: boolean;
}

export interface AwaitOrderQuery extends ById {
  waitSeconds: number;
}

export interface AwaitOrderResult extends WaitOutcome {
  order: Order;
}

export interface ListOrdersQuery extends RpcRequest, PageQuery {
  petId?: number;
  status?: OrderStatus[];
  complete?: boolean;
}

export interface FulfilOrderCommand extends ById {
  shipDate?: string;
}

export type CancelOrderCommand = ById;
