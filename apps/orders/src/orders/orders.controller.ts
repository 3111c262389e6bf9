import { CreateRequestContext, MikroORM } from '@mikro-orm/postgresql';
import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  OrdersPatterns,
  type AwaitOrderQuery,
  type AwaitOrderResult,
  type ById,
  type CancelOrderCommand,
  type FulfilOrderCommand,
  type ListOrdersQuery,
  type Order,
  type Page,
  type PlaceOrderCommand,
  type PlaceOrderResult,
} from '@petstore/contracts';
import { OrdersService } from './orders.service';

/** Each message gets its own EntityManager fork (@CreateRequestContext reads `orm`). */
@Controller()
export class OrdersController {
  constructor(
    private readonly orders: OrdersService,
    private readonly orm: MikroORM,
  ) {}

  @MessagePattern(OrdersPatterns.placeOrder)
  @CreateRequestContext()
  place(@Payload() command: PlaceOrderCommand): Promise<PlaceOrderResult> {
    return this.orders.place(command);
  }

  @MessagePattern(OrdersPatterns.listOrders)
  @CreateRequestContext()
  list(@Payload() query: ListOrdersQuery): Promise<Page<Order>> {
    return this.orders.list(query);
  }

  @MessagePattern(OrdersPatterns.getOrder)
  @CreateRequestContext()
  get(@Payload() query: ById): Promise<Order> {
    return this.orders.get(query);
  }

  @MessagePattern(OrdersPatterns.awaitOrder)
  @CreateRequestContext()
  await(@Payload() query: AwaitOrderQuery): Promise<AwaitOrderResult> {
    return this.orders.await(query);
  }

  @MessagePattern(OrdersPatterns.fulfilOrder)
  @CreateRequestContext()
  fulfil(@Payload() command: FulfilOrderCommand): Promise<Order> {
    return this.orders.fulfil(command);
  }

  @MessagePattern(OrdersPatterns.cancelOrder)
  @CreateRequestContext()
  cancel(@Payload() command: CancelOrderCommand): Promise<Order> {
    return this.orders.cancel(command);
  }
}
