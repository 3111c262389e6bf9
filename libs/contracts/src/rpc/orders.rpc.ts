import { ORDER_QUANTITY } from '../bounds';
import type { NewOrder, Order, OrderStatus } from '../model';
import { defineRpc, patternsOf } from './define-rpc';
import type { ById, Page, PageQuery, RpcRequest } from './rpc';

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

const shipDate = { type: 'string', format: 'date-time' };

/** The orders service checks what it stores from a command (orders, ship dates) itself. */
export const OrdersRpc = {
  placeOrder: defineRpc<PlaceOrderCommand, PlaceOrderResult>()('orders', 'orders.place', {
    type: 'object',
    required: ['order', 'requestId'],
    properties: {
      requestId: { type: 'string' },
      order: {
        type: 'object',
        required: ['petId', 'quantity'],
        properties: {
          petId: { type: 'integer', minimum: 1 },
          quantity: { type: 'integer', ...ORDER_QUANTITY },
          shipDate,
        },
        additionalProperties: false,
      },
      waitSeconds: { type: 'integer', minimum: 1, maximum: 10 },
    },
  }),
  listOrders: defineRpc<ListOrdersQuery, Page<Order>>()('orders', 'orders.list'),
  getOrder: defineRpc<ById, Order>()('orders', 'orders.get'),
  /** getOrder held until the order leaves `placed` or the wait elapses (`Prefer: wait`, API.md §9). */
  awaitOrder: defineRpc<AwaitOrderQuery, AwaitOrderResult>()('orders', 'orders.await'),
  fulfilOrder: defineRpc<FulfilOrderCommand, Order>()('orders', 'orders.fulfil', {
    type: 'object',
    required: ['id', 'requestId'],
    properties: { requestId: { type: 'string' }, id: { type: 'string' }, shipDate },
  }),
  cancelOrder: defineRpc<CancelOrderCommand, Order>()('orders', 'orders.cancel'),
};

export const OrdersPatterns = patternsOf(OrdersRpc);
