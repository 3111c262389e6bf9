import type { PetStatus } from '../model';
import type { PageQuery, RpcRequest } from './rpc';

export const InventoryPatterns = {
  listInventory: { cmd: 'inventory.list' },
  getInventoryItem: { cmd: 'inventory.get' },
  setStock: { cmd: 'inventory.set' },
} as const;

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
