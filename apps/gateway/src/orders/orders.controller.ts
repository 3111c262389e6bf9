import { Body, Controller, Get, Headers, Param, Patch, Post, Query, Req, Res } from '@nestjs/common';
import {
  OrdersPatterns,
  type CancelOrderCommand,
  type ById,
  type FulfilOrderCommand,
  type ListOrdersQuery,
  type NewOrder,
  type Order,
  type Page,
  type PlaceOrderCommand,
  type PlaceOrderResult,
} from '@petstore/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { canonicalJson } from '../common/canonical-json';
import { sendPage } from '../common/paging';
import { Operation } from '../operations/operation.decorator';
import { Upstream } from '../upstream/upstream.service';
import { parseIdempotencyKey } from './idempotency-key';
import { ListOrdersQuery as ListOrdersQuerySchema, NewOrderSchema, OrderFulfilmentSchema, OrderSchema, OrdersSchema } from './orders.schemas';

@Controller('v1/store/orders')
export class OrdersController {
  constructor(private readonly upstream: Upstream) {}

  @Post()
  @Operation({
    operationId: 'placeOrder',
    tag: 'Store',
    summary: 'Place an order for a pet',
    description:
      'The order starts `placed`; the inventory service then approves it (stock reserved) or rejects it with a reason. ' +
      'With `Idempotency-Key`, the same key and the same JSON body within 24 h answer the first response again ' +
      '(`Idempotent-Replayed: true`) and place nothing.',
    status: 201,
    body: NewOrderSchema,
    response: OrderSchema,
    responseHeaders: ['Location', 'Idempotent-Replayed'],
    headers: [
      {
        name: 'Idempotency-Key',
        description: 'Quoted or bare, 1–255 characters, scoped to the API key. `"k"` and `k` are the same key.',
        schema: { type: 'string', minLength: 1, maxLength: 257 },
      },
    ],
    errors: ['UNKNOWN_PET', 'IDEMPOTENCY_KEY_IN_USE', 'IDEMPOTENCY_KEY_REUSED'],
  })
  async place(
    @Body() order: NewOrder,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Order> {
    const key = parseIdempotencyKey(idempotencyKey);
    const payload: PlaceOrderCommand = {
      order,
      requestId: request.id,
      ...(key !== undefined && {
        idempotency: { scope: request.principal?.name ?? '', key, fingerprint: canonicalJson(order) },
      }),
    };
    const result = await this.upstream.send<PlaceOrderResult>('orders', OrdersPatterns.placeOrder, payload);
    reply.header('location', `/v1/store/orders/${result.order.id}`);
    if (result.replayed) reply.header('idempotent-replayed', 'true');
    return result.order;
  }

  @Get()
  @Operation({
    operationId: 'listOrders',
    tag: 'Store',
    summary: 'List orders',
    status: 200,
    query: ListOrdersQuerySchema,
    response: OrdersSchema,
    responseHeaders: ['Link'],
  })
  async list(
    @Query() query: Omit<ListOrdersQuery, 'requestId'>,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Order[]> {
    const payload: ListOrdersQuery = { ...query, requestId: request.id };
    const page = await this.upstream.send<Page<Order>>('orders', OrdersPatterns.listOrders, payload);
    return sendPage(reply, request.url, page, (order) => order.id);
  }

  @Get(':orderId')
  @Operation({
    operationId: 'getOrder',
    tag: 'Store',
    summary: 'Find an order by id',
    status: 200,
    response: OrderSchema,
    errors: ['ORDER_NOT_FOUND'],
  })
  async get(@Param('orderId') id: string, @Req() request: FastifyRequest): Promise<Order> {
    const payload: ById = { id, requestId: request.id };
    return this.upstream.send<Order>('orders', OrdersPatterns.getOrder, payload);
  }

  @Patch(':orderId')
  @Operation({
    operationId: 'fulfilOrder',
    tag: 'Store',
    summary: 'Fulfil an approved order',
    description: '`{"complete": true}` moves an `approved` order to `delivered`; any other status is a 409.',
    status: 200,
    body: OrderFulfilmentSchema,
    bodyTypes: ['application/json', 'application/merge-patch+json'],
    response: OrderSchema,
    errors: ['ORDER_NOT_FOUND', 'ORDER_NOT_APPROVED'],
  })
  async fulfil(
    @Param('orderId') id: string,
    @Body() body: { complete: true; shipDate?: string },
    @Req() request: FastifyRequest,
  ): Promise<Order> {
    const payload: FulfilOrderCommand = { id, requestId: request.id, ...(body.shipDate !== undefined && { shipDate: body.shipDate }) };
    return this.upstream.send<Order>('orders', OrdersPatterns.fulfilOrder, payload);
  }

  @Post(':orderId/cancel')
  @Operation({
    operationId: 'cancelOrder',
    tag: 'Store',
    summary: 'Cancel an order',
    description: 'A `placed` or `approved` order becomes `cancelled` and its reserved stock is released; otherwise 409. No body.',
    status: 200,
    response: OrderSchema,
    errors: ['ORDER_NOT_FOUND', 'ORDER_NOT_CANCELLABLE'],
    stability: 'beta',
  })
  async cancel(@Param('orderId') id: string, @Req() request: FastifyRequest): Promise<Order> {
    const payload: CancelOrderCommand = { id, requestId: request.id };
    return this.upstream.send<Order>('orders', OrdersPatterns.cancelOrder, payload);
  }
}
