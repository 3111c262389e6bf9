import { CreateRequestContext, MikroORM } from '@mikro-orm/postgresql';
import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  OrdersRpc,
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
import { RpcHandler } from '@petstore/service-kit';
import { OrdersService } from './orders.service';

/** Each message but a placement gets its own EntityManager fork (@CreateRequestContext reads `orm`). */
@Controller()
export class OrdersController {
  constructor(
    private readonly orders: OrdersService,
    private readonly orm: MikroORM,
  ) {}

  /**
   * No request context: a placement is one statement, or its key's transaction (a fork of its
   * own), and needs no unit of work; a held answer reads the order in a context of its own
   * (OrdersService.place). A context here was an EntityManager made per order.
   */
  @RpcHandler(OrdersRpc.placeOrder)
  place(@Payload() command: PlaceOrderCommand): Promise<PlaceOrderResult> {
    return this.orders.place(command);
  }

  @RpcHandler(OrdersRpc.listOrders)
  @CreateRequestContext()
  list(@Payload() query: ListOrdersQuery): Promise<Page<Order>> {
    return this.orders.list(query);
  }

  @RpcHandler(OrdersRpc.getOrder)
  @CreateRequestContext()
  get(@Payload() query: ById): Promise<Order> {
    return this.orders.get(query);
  }

  @RpcHandler(OrdersRpc.awaitOrder)
  @CreateRequestContext()
  await(@Payload() query: AwaitOrderQuery): Promise<AwaitOrderResult> {
    return this.orders.await(query);
  }

  @RpcHandler(OrdersRpc.fulfilOrder)
  @CreateRequestContext()
  fulfil(@Payload() command: FulfilOrderCommand): Promise<Order> {
    return this.orders.fulfil(command);
  }

  @RpcHandler(OrdersRpc.cancelOrder)
  @CreateRequestContext()
  cancel(@Payload() command: CancelOrderCommand): Promise<Order> {
    return this.orders.cancel(command);
  }
}
