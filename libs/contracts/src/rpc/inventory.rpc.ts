import { STOCK_QUANTITY } from '../bounds';
import type { InventoryItem, PetStatus } from '../model';
import { defineRpc, patternsOf } from './define-rpc';
import type { Page, PageQuery, RpcRequest } from './rpc';

/** Paged by pet id. */
export interface ListInventoryQuery extends RpcRequest, PageQuery {
  status?: PetStatus[];
}

export interface InventoryItemQuery extends RpcRequest {
  petId: string;
}

export interface SetStockCommand extends RpcRequest {
  petId: string;
  quantity: number;
}

export const InventoryRpc = {
  listInventory: defineRpc<ListInventoryQuery, Page<InventoryItem>>()('inventory', 'inventory.list'),
  getInventoryItem: defineRpc<InventoryItemQuery, InventoryItem>()('inventory', 'inventory.get'),
  /** The service checks the count itself: it is the one place that keeps stock. */
  setStock: defineRpc<SetStockCommand, InventoryItem>()('inventory', 'inventory.set', {
    type: 'object',
    required: ['petId', 'quantity', 'requestId'],
    properties: {
      requestId: { type: 'string' },
      petId: { type: 'string' },
      quantity: { type: 'integer', ...STOCK_QUANTITY },
    },
  }),
};

export const InventoryPatterns = patternsOf(InventoryRpc);
