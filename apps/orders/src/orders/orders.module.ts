import { Module, type DynamicModule } from '@nestjs/common';
import { PetsModule } from '../pets/pets.module';
import { IdempotencyKeys } from './idempotency-keys';
import { OrdersController } from './orders.controller';
import { OrderSagaService } from './order-saga.service';
import { OrdersService } from './orders.service';
import { DecisionWaits, MAX_HELD_ANSWERS } from './decision-waits';
import { PetDeletedHandler } from './pet-deleted.handler';
import { Placements } from './placements';
import { StockDecisionHandler } from './stock-decision.handler';

export const orderHandlers = [StockDecisionHandler, PetDeletedHandler];

@Module({})
export class OrdersModule {
  static forRoot({ maxHeldAnswers }: { maxHeldAnswers: number }): DynamicModule {
    return {
      module: OrdersModule,
      imports: [PetsModule],
      controllers: [OrdersController],
      providers: [
        OrdersService,
        OrderSagaService,
        IdempotencyKeys,
        DecisionWaits,
        Placements,
        { provide: MAX_HELD_ANSWERS, useValue: maxHeldAnswers },
        ...orderHandlers,
      ],
    };
  }
}
