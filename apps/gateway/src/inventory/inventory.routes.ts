import { InventoryRpc, type ListInventoryQuery } from '@petstore/contracts';
import type { Operation, PathId } from '../http/operation';
import type { Upstream } from '../upstream/upstream';
import { InventoryItemSchema, InventoryItemsSchema, InventoryUpdateSchema, ListInventoryQuery as ListInventoryQuerySchema } from './inventory.schemas';

export function inventoryOperations(upstream: Upstream): Operation[] {
  const list: Operation<{ Querystring: Omit<ListInventoryQuery, 'requestId'> }> = {
    route: 'GET /v1/store/inventory', operationId: 'listInventory', status: 200, query: ListInventoryQuerySchema, response: InventoryItemsSchema, pagedBy: 'petId',
    summary: 'List inventory entries',
    description: 'Ordered and paged by petId.',
    handle: (request) => upstream.call(InventoryRpc.listInventory, { ...request.query, requestId: request.id }),
  };
  const get: Operation<PathId<'petId'>> = {
    route: 'GET /v1/store/inventory/:petId', operationId: 'getInventoryItem', status: 200, response: InventoryItemSchema, errors: ['INVENTORY_ITEM_NOT_FOUND'],
    summary: "Find a pet's inventory entry",
    description: 'The free stock count of the pet and its status.',
    handle: (request) => upstream.call(InventoryRpc.getInventoryItem, { petId: request.params.petId, requestId: request.id }),
  };
  const set: Operation<PathId<'petId'> & { Body: { quantity: number } }> = {
    route: 'PUT /v1/store/inventory/:petId', operationId: 'setStock', status: 200, body: InventoryUpdateSchema, response: InventoryItemSchema,
    errors: ['INVENTORY_ITEM_NOT_FOUND'],
    summary: "Set a pet's free stock count",
    description: "The pet's status is recomputed: quantity > 0 → `available`; 0 → `pending` while an approved order is open, else `sold`.",
    handle: (request) => upstream.call(InventoryRpc.setStock, { petId: request.params.petId, quantity: request.body.quantity, requestId: request.id }),
  };
  return [list, get, set] as Operation[];
}
