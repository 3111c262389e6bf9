import { Module } from '@nestjs/common';
import { PetsModule } from '../pets/pets.module';
import { IdempotencyKeys } from './idempotency-keys';
import { OrdersController } from './orders.controller';
import { OrdersService } from './orders.service';
import { DecisionWaits } from './decision-waits';
import { PetDeletedHandler } from './pet-deleted.handler';
import { StockDecisionHandler } from './stock-decision.handler';

export const orderHandlers = [StockDecisionHandler, PetDeletedHandler];

@Module({
  imports: [PetsModule],
  controllers: [OrdersController],
  providers: [OrdersService, IdempotencyKeys, DecisionWaits, ...orderHandlers],
})
export class OrdersModule {}
