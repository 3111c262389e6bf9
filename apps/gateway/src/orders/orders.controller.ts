import { Controller, Req, Res } from '@nestjs/common';
import { OrdersRpc, type ListOrdersQuery, type NewOrder } from '@petstore/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { stringify as canonicalJson } from 'safe-stable-stringify';
import type { GatewayConfig } from '../config';
import { InjectConfig } from '../config.provider';
import { created, Endpoint, paged, type Operation, type PathId } from '../http/operation';
import { Upstream } from '../upstream/upstream';
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

const place: Operation = {
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
};
const list: Operation = {
  route: 'GET /v1/store/orders', operationId: 'listOrders', status: 200, query: ListOrdersQuerySchema, response: OrdersSchema, pagedBy: 'id',
  summary: 'List orders',
  description: 'Filters combine; ordered by id.',
};
const get: Operation = {
  route: 'GET /v1/store/orders/:orderId', operationId: 'getOrder', status: 200, response: OrderSchema, responseHeaders: ['Preference-Applied'],
  summary: 'Find an order by id',
  description: 'The order as it is now; with `Prefer: wait`, as it is once decided or when the wait elapses.',
  headers: { Prefer },
  errors: ['ORDER_NOT_FOUND'],
};
const fulfil: Operation = {
  route: 'PATCH /v1/store/orders/:orderId', operationId: 'fulfilOrder', status: 200, body: OrderFulfilmentSchema, bodyTypes: ['application/json', 'application/merge-patch+json'], response: OrderSchema,
  summary: 'Fulfil an approved order',
  description: '`{"complete": true}` moves an `approved` order to `delivered`; any other status is a 409.',
  errors: ['ORDER_NOT_FOUND', 'ORDER_NOT_APPROVED'],
};
const cancel: Operation = {
  route: 'POST /v1/store/orders/:orderId/cancel', operationId: 'cancelOrder', status: 200, response: OrderSchema, stability: 'beta',
  summary: 'Cancel an order',
  description: 'A `placed` or `approved` order becomes `cancelled` and its reserved stock is released; otherwise 409. No body (or an empty JSON object).',
  errors: ['ORDER_NOT_FOUND', 'ORDER_NOT_CANCELLABLE'],
};

/** Orders, in the orders service (`/v1/store/orders`). */
@Controller()
export class OrdersController {
  constructor(
    private readonly upstream: Upstream,
    @InjectConfig() private readonly config: GatewayConfig,
  ) {}

  /** A held answer may take the wait on top of the usual time to answer. */
  private within(wait: number | undefined) {
    return { timeoutMs: this.config.upstreamTimeoutMs + (wait ?? 0) * 1000 };
  }

  @Endpoint(place)
  async place(@Req() request: FastifyRequest<{ Body: NewOrder }>, @Res({ passthrough: true }) reply: FastifyReply) {
    const key = parseIdempotencyKey(request.headers['idempotency-key']);
    const wait = preferredWait(request.headers.prefer);
    const idempotency = key === undefined ? undefined : { scope: request.principal?.name ?? '', key, fingerprint: canonicalJson(request.body) };
    // Undefined fields are not sent: the command travels as JSON.
    const result = await this.upstream.call(OrdersRpc.placeOrder, { order: request.body, idempotency, waitSeconds: wait, requestId: request.id }, this.within(wait));
    if (result.replayed) reply.header('idempotent-replayed', 'true');
    else if (result.waitApplied !== undefined) reply.header('preference-applied', `wait=${result.waitApplied}`);
    return created(place, reply, result.order);
  }

  @Endpoint(list)
  async list(@Req() request: FastifyRequest<{ Querystring: Omit<ListOrdersQuery, 'requestId'> }>, @Res({ passthrough: true }) reply: FastifyReply) {
    return paged(list, request, reply, await this.upstream.call(OrdersRpc.listOrders, { ...request.query, requestId: request.id }));
  }

  @Endpoint(get)
  async get(@Req() request: PathId<'orderId'>, @Res({ passthrough: true }) reply: FastifyReply) {
    const wait = preferredWait(request.headers.prefer);
    const query = { id: request.params.orderId, requestId: request.id };
    if (wait === undefined) return this.upstream.call(OrdersRpc.getOrder, query);
    const result = await this.upstream.call(OrdersRpc.awaitOrder, { ...query, waitSeconds: wait }, this.within(wait));
    if (result.waitApplied !== undefined) reply.header('preference-applied', `wait=${result.waitApplied}`);
    return result.order;
  }

  @Endpoint(fulfil)
  fulfil(@Req() request: PathId<'orderId'> & FastifyRequest<{ Body: { complete: true; shipDate?: string } }>) {
    return this.upstream.call(OrdersRpc.fulfilOrder, { id: request.params.orderId, shipDate: request.body.shipDate, requestId: request.id });
  }

  @Endpoint(cancel)
  cancel(@Req() request: PathId<'orderId'>) {
    return this.upstream.call(OrdersRpc.cancelOrder, { id: request.params.orderId, requestId: request.id });
  }
}
