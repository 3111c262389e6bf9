import type { NewOrder, Order, OrderStatus } from '../model';
import type { ById, PageQuery, RpcRequest } from './rpc';

export const OrdersPatterns = {
  placeOrder: { cmd: 'orders.place' },
  listOrders: { cmd: 'orders.list' },
  getOrder: { cmd: 'orders.get' },
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

export interface PlaceOrderCommand extends RpcRequest {
  order: NewOrder;
  idempotency?: IdempotencyKey;
}

export interface PlaceOrderResult {
  order: Order;
  /** True when an earlier request with the same idempotency key is answered again. */
  replayed: boolean;
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
