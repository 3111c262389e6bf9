import { CreateRequestContext, MikroORM } from '@mikro-orm/postgresql';
import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  InventoryRpc,
  type InventoryItem,
  type InventoryItemQuery,
  type ListInventoryQuery,
  type Page,
  type SetStockCommand,
} from '@petstore/contracts';
import { RpcHandler } from '@petstore/service-kit';
import { InventoryService } from './inventory.service';

/** Each message gets its own EntityManager fork (@CreateRequestContext reads `orm`). */
@Controller()
export class InventoryController {
  constructor(
    private readonly inventory: InventoryService,
    private readonly orm: MikroORM,
  ) {}

  @RpcHandler(InventoryRpc.listInventory)
  @CreateRequestContext()
  list(@Payload() query: ListInventoryQuery): Promise<Page<InventoryItem>> {
    return this.inventory.list(query);
  }

  @RpcHandler(InventoryRpc.getInventoryItem)
  @CreateRequestContext()
  get(@Payload() query: InventoryItemQuery): Promise<InventoryItem> {
    return this.inventory.get(query);
  }

  @RpcHandler(InventoryRpc.setStock)
  @CreateRequestContext()
  setStock(@Payload() command: SetStockCommand): Promise<InventoryItem> {
    return this.inventory.setStock(command);
  }
}
