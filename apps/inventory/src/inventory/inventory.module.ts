import { Module } from '@nestjs/common';
import { InventoryController } from './inventory.controller';
import { InventoryEntries } from './inventory-entries';
import { InventoryService } from './inventory.service';
import { OrderCancelledHandler } from './order-cancelled.handler';
import { OrderDeliveredHandler } from './order-delivered.handler';
import { OrderPlacedHandler } from './order-placed.handler';
import { PetCreatedHandler } from './pet-created.handler';
import { PetDeletedHandler } from './pet-deleted.handler';
import { PetUpdatedHandler } from './pet-updated.handler';
import { ReservationsService } from './reservations.service';

export const inventoryHandlers = [
  PetCreatedHandler,
  PetUpdatedHandler,
  PetDeletedHandler,
  OrderPlacedHandler,
  OrderCancelledHandler,
  OrderDeliveredHandler,
];

@Module({
  controllers: [InventoryController],
  providers: [InventoryService, InventoryEntries, ReservationsService, ...inventoryHandlers],
})
export class InventoryModule {}
