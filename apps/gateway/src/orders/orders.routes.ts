import { OrdersRpc, type ListOrdersQuery, type NewOrder } from '@petstore/contracts';
import { stringify as canonicalJson } from 'safe-stable-stringify';
import type { GatewayConfig } from '../config';
import type { Operation, PathId } from '../http/operation';
import type { Upstream } from '../upstream/upstream';
import { IDEMPOTENCY_KEY_PATTERN, parseIdempotencyKey } from './idempotency-key';
import { ListOrdersQuery as ListOrdersQuerySchema, NewOrderSchema, OrderFulfilmentSchema, OrderSchema, OrdersSchema } from './orders.schemas';
import { MAX_WAIT_SECONDS, preferredWait } from './prefer';

const Prefer = {
  type: 'string',
  example: 'wait=5',
  description:
    `RFC 7240. \`wait=<seconds>\` (1–${MAX_WAIT_SECONDS}; a larger value counts as ${MAX_WAIT_SECONDS}) holds the answer until the order leaves \`placed\` ` +
    'or the wait elapses, and `Preference-Applied` then says so; `wait=0`, a value that is not a number and other preferences are ignored.',
  'x-stability-level': 'experimental',
};

export function ordersOperations(upstream: Upstream, config: GatewayConfig): Operation[] {
  // A held answer may take the wait on top of the usual time to answer.
  const within = (wait: number | undefined) => ({ timeoutMs: config.upstreamTimeoutMs + (wait ?? 0) * 1000 });

  const place: Operation<{ Body: NewOrder }> = {
    route: 'POST /v1/store/orders', operationId: 'placeOrder', status: 201, body: NewOrderSchema, response: OrderSchema, responseHeaders: ['Idempotent-Replayed', 'Preference-Applied'],
    summary: 'Place an order for a pet',
    description:
      'The order starts `placed`; the inventory service then approves it (stock reserved) or rejects it with a reason. ' +
      'With `Idempotency-Key`, the same key and the same JSON body within 24 h answer the first response again ' +
      '(`Idempotent-Replayed: true`) and place nothing. With `Prefer: wait`, the answer waits for the decision.',
    headers: {
      'Idempotency-Key': {
        type: 'string',
        pattern: IDEMPOTENCY_KEY_PATTERN,
        description: '1–255 visible ASCII characters (spaces only inside), bare or as a quoted string; `"k"` and `k` are the same key, scoped to the API key.',
      },
      Prefer,
    },
    errors: ['UNKNOWN_PET', 'IDEMPOTENCY_KEY_IN_USE', 'IDEMPOTENCY_KEY_REUSED'],
    location: (order) => `/v1/store/orders/${order.id}`,
    handle: async (request, reply) => {
      const key = parseIdempotencyKey(request.headers['idempotency-key']);
      const wait = preferredWait(request.headers.prefer);
      const idempotency = key === undefined ? undefined : { scope: request.principal?.name ?? '', key, fingerprint: canonicalJson(request.body) };
      // Undefined fields are not sent: the command travels as JSON.
      const result = await upstream.call(OrdersRpc.placeOrder, { order: request.body, idempotency, waitSeconds: wait, requestId: request.id }, within(wait));
      if (result.replayed) reply.header('idempotent-replayed', 'true');
      else if (result.waitApplied !== undefined) reply.header('preference-applied', `wait=${result.waitApplied}`);
      return result.order;
    },
  };
  const list: Operation<{ Querystring: Omit<ListOrdersQuery, 'requestId'> }> = {
    route: 'GET /v1/store/orders', operationId: 'listOrders', status: 200, query: ListOrdersQuerySchema, response: OrdersSchema, pagedBy: 'id',
    summary: 'List orders',
    description: 'Filters combine; ordered by id.',
    handle: (request) => upstream.call(OrdersRpc.listOrders, { ...request.query, requestId: request.id }),
  };
  const get: Operation<PathId<'orderId'>> = {
    route: 'GET /v1/store/orders/:orderId', operationId: 'getOrder', status: 200, response: OrderSchema, responseHeaders: ['Preference-Applied'],
    summary: 'Find an order by id',
    description: 'The order as it is now; with `Prefer: wait`, as it is once decided or when the wait elapses.',
    headers: { Prefer },
    errors: ['ORDER_NOT_FOUND'],
    handle: async (request, reply) => {
      const wait = preferredWait(request.headers.prefer);
      const query = { id: request.params.orderId, requestId: request.id };
      if (wait === undefined) return upstream.call(OrdersRpc.getOrder, query);
      const result = await upstream.call(OrdersRpc.awaitOrder, { ...query, waitSeconds: wait }, within(wait));
      if (result.waitApplied !== undefined) reply.header('preference-applied', `wait=${result.waitApplied}`);
      return result.order;
    },
  };
  const fulfil: Operation<PathId<'orderId'> & { Body: { complete: true; shipDate?: string } }> = {
    route: 'PATCH /v1/store/orders/:orderId', operationId: 'fulfilOrder', status: 200, body: OrderFulfilmentSchema, bodyTypes: ['application/json', 'application/merge-patch+json'], response: OrderSchema,
    summary: 'Fulfil an approved order',
    description: '`{"complete": true}` moves an `approved` order to `delivered`; any other status is a 409.',
    errors: ['ORDER_NOT_FOUND', 'ORDER_NOT_APPROVED'],
    handle: (request) => upstream.call(OrdersRpc.fulfilOrder, { id: request.params.orderId, shipDate: request.body.shipDate, requestId: request.id }),
  };
  const cancel: Operation<PathId<'orderId'>> = {
    route: 'POST /v1/store/orders/:orderId/cancel', operationId: 'cancelOrder', status: 200, response: OrderSchema, stability: 'beta',
    summary: 'Cancel an order',
    description: 'A `placed` or `approved` order becomes `cancelled` and its reserved stock is released; otherwise 409. No body (or an empty JSON object).',
    errors: ['ORDER_NOT_FOUND', 'ORDER_NOT_CANCELLABLE'],
    handle: (request) => upstream.call(OrdersRpc.cancelOrder, { id: request.params.orderId, requestId: request.id }),
  };
  return [place, list, get, fulfil, cancel] as Operation[];
}
