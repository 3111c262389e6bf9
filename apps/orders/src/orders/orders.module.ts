import { Module } from '@nestjs/common';
import { PetsModule } from '../pets/pets.module';
import { IdempotencyKeys } from './idempotency-keys';
import { OrdersController } from './orders.controller';
import { OrdersService } from './orders.service';
import { PetDeletedHandler } from './pet-deleted.handler';
import { StockReservationRejectedHandler } from './stock-reservation-rejected.handler';
import { StockReservedHandler } from './stock-reserved.handler';

export const orderHandlers = [StockReservedHandler, StockReservationRejectedHandler, PetDeletedHandler];

@Module({
  imports: [PetsModule],
  controllers: [OrdersController],
  providers: [OrdersService, IdempotencyKeys, ...orderHandlers],
})
export class OrdersModule {}
