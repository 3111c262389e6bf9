import { Controller, Req, Res } from '@nestjs/common';
import { InventoryRpc, type ListInventoryQuery } from '@petstore/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Endpoint, paged, type Operation, type PathId } from '../http/operation';
import { Upstream } from '../upstream/upstream';
import { InventoryItemSchema, InventoryItemsSchema, InventoryUpdateSchema, ListInventoryQuery as ListInventoryQuerySchema } from './inventory.schemas';

const list: Operation = {
  route: 'GET /v1/store/inventory', operationId: 'listInventory', status: 200, query: ListInventoryQuerySchema, response: InventoryItemsSchema, pagedBy: 'petId',
  summary: 'List inventory entries',
  description: 'Ordered and paged by petId.',
};
const get: Operation = {
  route: 'GET /v1/store/inventory/:petId', operationId: 'getInventoryItem', status: 200, response: InventoryItemSchema, errors: ['INVENTORY_ITEM_NOT_FOUND'],
  summary: "Find a pet's inventory entry",
  description: 'The free stock count of the pet and its status.',
};
const set: Operation = {
  route: 'PUT /v1/store/inventory/:petId', operationId: 'setStock', status: 200, body: InventoryUpdateSchema, response: InventoryItemSchema,
  errors: ['INVENTORY_ITEM_NOT_FOUND'],
  summary: "Set a pet's free stock count",
  description: "The pet's status is recomputed: quantity > 0 → `available`; 0 → `pending` while an approved order is open, else `sold`.",
};

/** Stock, in the inventory service (`/v1/store/inventory`). */
@Controller()
export class InventoryController {
  constructor(private readonly upstream: Upstream) {}

  @Endpoint(list)
  async list(@Req() request: FastifyRequest<{ Querystring: Omit<ListInventoryQuery, 'requestId'> }>, @Res({ passthrough: true }) reply: FastifyReply) {
    return paged(list, request, reply, await this.upstream.call(InventoryRpc.listInventory, { ...request.query, requestId: request.id }));
  }

  @Endpoint(get)
  get(@Req() request: PathId<'petId'>) {
    return this.upstream.call(InventoryRpc.getInventoryItem, { petId: request.params.petId, requestId: request.id });
  }

  @Endpoint(set)
  set(@Req() request: PathId<'petId'> & FastifyRequest<{ Body: { quantity: number } }>) {
    return this.upstream.call(InventoryRpc.setStock, { petId: request.params.petId, quantity: request.body.quantity, requestId: request.id });
  }
}
