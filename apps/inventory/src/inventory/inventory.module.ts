import { Module } from '@nestjs/common';
import { InventoryController } from './inventory.controller';
import { InventoryService } from './inventory.service';
import { OrderEventsHandler } from './order-events.handler';
import { ParkedOrders } from './parked-orders';
import { PetEventsHandler } from './pet-events.handler';
import { StockBatches } from './stock-batches';

export const inventoryHandlers = [PetEventsHandler, OrderEventsHandler];

@Module({
  controllers: [InventoryController],
  providers: [InventoryService, StockBatches, ParkedOrders, ...inventoryHandlers],
})
export class InventoryModule {}
