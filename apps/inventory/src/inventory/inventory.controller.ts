import { CreateRequestContext, MikroORM } from '@mikro-orm/postgresql';
import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  InventoryPatterns,
  type InventoryItem,
  type InventoryItemQuery,
  type ListInventoryQuery,
  type Page,
  type SetStockCommand,
} from '@petstore/contracts';
import { InventoryService } from './inventory.service';

/** Each message gets its own EntityManager fork (@CreateRequestContext reads `orm`). */
@Controller()
export class InventoryController {
  constructor(
    private readonly inventory: InventoryService,
    private readonly orm: MikroORM,
  ) {}

  @MessagePattern(InventoryPatterns.listInventory)
  @CreateRequestContext()
  list(@Payload() query: ListInventoryQuery): Promise<Page<InventoryItem>> {
    return this.inventory.list(query);
  }

  @MessagePattern(InventoryPatterns.getInventoryItem)
  @CreateRequestContext()
  get(@Payload() query: InventoryItemQuery): Promise<InventoryItem> {
    return this.inventory.get(query);
  }

  @MessagePattern(InventoryPatterns.setStock)
  @CreateRequestContext()
  setStock(@Payload() command: SetStockCommand): Promise<InventoryItem> {
    return this.inventory.setStock(command);
  }
}
