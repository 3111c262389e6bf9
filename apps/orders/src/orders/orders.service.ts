import { LockMode } from '@mikro-orm/core';
import { EntityManager, MikroORM, RequestContext, type FilterQuery } from '@mikro-orm/postgresql';
import { Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import {
  ORDER_QUANTITY,
  OrderCancelled,
  OrderDelivered,
  OrderPlaced,
  boundsRule,
  isContractDateTime,
  withinBounds,
  type AwaitOrderQuery,
  type AwaitOrderResult,
  type ById,
  type CancelOrderCommand,
  type EventMeta,
  type FulfilOrderCommand,
  type IdempotencyKey,
  type ListOrdersQuery,
  type NewOrder,
  type Order as OrderView,
  type Page,
  type PlaceOrderCommand,
  type PlaceOrderResult,
} from '@petstore/contracts';
import { executePrepared, inStatementTransaction, poolEntityManager } from '@petstore/database';
import { OutboxWriter, TransactionHooks, outboxRow } from '@petstore/messaging';
import { DomainError, pageCursor, pageLimit, pageOf, parsePathId } from '@petstore/service-kit';
import { ORDERS_PRODUCER } from '../config';
import { KnownPetsService, unknownPet } from '../pets/known-pets.service';
import { DecisionWaits } from './decision-waits';
import { IdempotencyKeys, isKeyLockTimeout, keyInUse } from './idempotency-keys';
import { Order } from './order.entity';
import { nextStatus, type OrderAction } from './order-transitions';
import { toOrderView } from './order.view';
import { insertOrders, Placements } from './placements';
import { oldestPlacedOrder, ordersCancelled, ordersPlaced } from './orders.metrics';

const OLDEST_PLACED_AGE = `
  select extract(epoch from now() - created_at)::float8 as age
    from store_order where status = 'placed' order by id limit 1`;

/** OrderPlaced is built before the database gives the order its id: this stands in for it (see insertForKnownPet). */
const ORDER_ID_STAND_IN = 1;

type NewOrderFields = Pick<Order, 'petId' | 'quantity' | 'shipDate'>;

/** The pet was not in the replica: thrown out of a transaction to roll it back before the catalog is asked. */
class PetNotKnown extends Error {}

function requestMeta(requestId: string): EventMeta {
  return { producer: ORDERS_PRODUCER, correlationId: requestId };
}

function orderNotFound(id: string | number): DomainError {
  return new DomainError(404, 'ORDER_NOT_FOUND', `Order ${id} does not exist`);
}

/**
 * What clients ask of orders. RPC methods but `place` expect a request context (the controller
 * creates one per message); what other services' events do to orders is OrderSagaService's.
 */
@Injectable()
export class OrdersService implements OnModuleInit, OnModuleDestroy {
  /** For the metrics' statement, outside any request's context. */
  private readonly pool: EntityManager;

  constructor(
    private readonly em: EntityManager,
    private readonly orm: MikroORM,
    private readonly outbox: OutboxWriter,
    private readonly hooks: TransactionHooks,
    private readonly pets: KnownPetsService,
    private readonly keys: IdempotencyKeys,
    private readonly waits: DecisionWaits,
    private readonly placements: Placements,
  ) {
    this.pool = poolEntityManager(orm);
  }

  onModuleInit(): void {
    oldestPlacedOrder.answerWith(() => this.oldestPlacedAgeSeconds());
  }

  onModuleDestroy(): void {
    oldestPlacedOrder.answerWith(undefined);
  }

  /**
   * Seconds the oldest order still `placed` has waited for its decision, 0 when none waits. Ids
   * grow with placement, so the first entry of the status index under 'placed' is the oldest:
   * one index probe, however many orders there are.
   */
  async oldestPlacedAgeSeconds(): Promise<number> {
    const [oldest] = await executePrepared<{ age: number }>(this.pool, OLDEST_PLACED_AGE);
    return oldest ? Math.max(0, oldest.age) : 0;
  }

  async place({ order: input, idempotency, requestId, waitSeconds }: PlaceOrderCommand): Promise<PlaceOrderResult> {
    const fields = newOrderFields(input);
    let placed = await this.placeIfKnown(fields, requestId, idempotency);
    if (placed === 'pet not known') {
      // A pet no event has announced yet: asked of the catalog outside any transaction, then placed.
      await this.pets.assertKnown(fields.petId, requestId);
      placed = await this.placeIfKnown(fields, requestId, idempotency);
      if (placed === 'pet not known') throw unknownPet(fields.petId);
    }
    if (placed.replayed) return placed;
    ordersPlaced.inc();
    if (!waitSeconds) return placed;
    const orderId = placed.order.id;
    const waited = await this.waits.until(
      orderId,
      waitSeconds,
      // Placing ran with no request context (OrdersController.place): each read makes its own.
      () => RequestContext.create(this.em, () => this.get({ id: String(orderId), requestId })),
      placed.order,
    );
    // A replay answers what this request answers: the order as it is after the wait.
    if (idempotency && waited.order.status !== placed.order.status)
      await this.keys.remember(this.em, idempotency, waited.order);
    return { ...waited, replayed: false };
  }

  /** `Prefer: wait` on reading an order. */
  async await({ id, requestId, waitSeconds }: AwaitOrderQuery): Promise<AwaitOrderResult> {
    const orderId = parsePathId(id);
    if (orderId === undefined || !Number.isSafeInteger(orderId)) throw orderNotFound(id);
    return this.waits.until(orderId, waitSeconds, () => this.get({ id, requestId }));
  }

  /**
   * The order for a pet known to exist (and not deleted), or 'pet not known'. Without a key it
   * is one statement; with one, the key's transaction around it.
   */
  private async placeIfKnown(
    fields: NewOrderFields,
    requestId: string,
    idempotency: IdempotencyKey | undefined,
  ): Promise<{ order: OrderView; replayed: boolean } | 'pet not known'> {
    if (!idempotency) {
      const order = await this.insertForKnownPet(undefined, fields, requestId);
      return order ? { order, replayed: false } : 'pet not known';
    }
    try {
      return await inStatementTransaction(this.orm, async (em) => {
        const claim = await this.keys.claim(em, idempotency);
        if (claim.kind === 'replay') return { order: claim.order, replayed: true };
        const order = await this.insertForKnownPet(em, fields, requestId);
        // Rolls back the key too: the catalog is asked with nothing held, and the key claimed again.
        if (!order) throw new PetNotKnown();
        await this.keys.remember(em, idempotency, order);
        return { order, replayed: false };
      }).finally(() => this.outbox.committed());
    } catch (error) {
      if (error instanceof PetNotKnown) return 'pet not known';
      if (isKeyLockTimeout(error)) throw keyInUse();
      throw error;
    }
  }

  async list(query: ListOrdersQuery): Promise<Page<OrderView>> {
    const limit = pageLimit(query.limit);
    // Every filter narrows rows read in id order, so paging walks the primary key (or the pet / status index).
    const where: FilterQuery<Order>[] = [{ id: { $gt: pageCursor(query.after) } }];
    if (query.petId !== undefined) where.push({ petId: Number.isSafeInteger(query.petId) ? query.petId : 0 });
    if (query.status?.length) where.push({ status: { $in: query.status } });
    if (query.complete !== undefined) where.push({ status: query.complete ? 'delivered' : { $ne: 'delivered' } });
    const rows = await this.em.find(Order, { $and: where }, { orderBy: { id: 'asc' }, limit: limit + 1 });
    return pageOf(rows.map(toOrderView), limit);
  }

  async get({ id }: ById): Promise<OrderView> {
    const orderId = parsePathId(id);
    // refresh: a held answer reads the order again after its decision, in the same unit of work.
    const order = orderId === undefined ? null : await this.em.findOne(Order, orderId, { refresh: true });
    if (!order) throw orderNotFound(id);
    return toOrderView(order);
  }

  async fulfil({ id, shipDate, requestId }: FulfilOrderCommand): Promise<OrderView> {
    return this.em.transactional(async (em) => {
      const order = await this.lock(em, id);
      if (!transition(order, 'deliver')) {
        throw new DomainError(
          409,
          'ORDER_NOT_APPROVED',
          `Order ${order.id} is ${order.status}: only an approved order can be fulfilled`,
        );
      }
      if (shipDate !== undefined) order.shipDate = parseShipDate(shipDate);
      this.outbox.add(
        em,
        OrderDelivered.create(
          { orderId: order.id, petId: order.petId, quantity: order.quantity },
          requestMeta(requestId),
        ),
      );
      return toOrderView(order);
    });
  }

  async cancel({ id, requestId }: CancelOrderCommand): Promise<OrderView> {
    return this.em.transactional(async (em) => {
      const order = await this.lock(em, id);
      const previousStatus = order.status;
      if (!this.cancelOrder(em, order, requestMeta(requestId))) {
        throw new DomainError(
          409,
          'ORDER_NOT_CANCELLABLE',
          `Order ${order.id} is ${order.status}: only a placed or approved order can be cancelled`,
        );
      }
      if (previousStatus === 'placed') await this.waits.announce(em, [order.id]);
      this.hooks.after(em, () => ordersCancelled.inc());
      return toOrderView(order);
    });
  }

  private cancelOrder(em: EntityManager, order: Order, meta: EventMeta): boolean {
    const previousStatus = order.status;
    if (previousStatus !== 'placed' && previousStatus !== 'approved') return false;
    if (!transition(order, 'cancel')) return false;
    this.outbox.add(
      em,
      OrderCancelled.create({ orderId: order.id, petId: order.petId, quantity: order.quantity, previousStatus }, meta),
    );
    return true;
  }

  /** The order and its OrderPlaced (see insertOrders); undefined when the pet is not known or deleted. */
  private async insertForKnownPet(
    em: EntityManager | undefined,
    order: NewOrderFields,
    requestId: string,
  ): Promise<OrderView | undefined> {
    if (!Number.isSafeInteger(order.petId)) return undefined;
    // The database gives the order its id; the statement puts it into the event built here.
    const event = OrderPlaced.create(
      { orderId: ORDER_ID_STAND_IN, petId: order.petId, quantity: order.quantity },
      requestMeta(requestId),
    );
    const id = em
      ? (await insertOrders(em, [{ order, row: outboxRow(event) }])).get(0)
      : await this.placements.place(order, event);
    return id === undefined ? undefined : toOrderView(Object.assign(new Order(), { ...order, id }));
  }

  /** The row lock orders concurrent changes of one order: a client's cancel and the inventory's decision. */
  private async lock(em: EntityManager, id: string): Promise<Order> {
    const orderId = parsePathId(id);
    const order =
      orderId === undefined
        ? null
        : await em.findOne(Order, orderId, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
    if (!order) throw orderNotFound(id);
    return order;
  }
}

function transition(order: Order, action: OrderAction): boolean {
  const next = nextStatus(order.status, action);
  if (!next) return false;
  order.status = next;
  return true;
}

/** The gateway validates the body against the contract; this keeps the table's rules even for another caller. */
function newOrderFields(order: NewOrder): NewOrderFields {
  const { petId, quantity, shipDate } = order ?? ({} as NewOrder);
  const details = [];
  if (typeof petId !== 'number' || !Number.isInteger(petId) || petId < 1) {
    details.push({ field: 'petId', message: 'must be a positive integer' });
  }
  if (!withinBounds(quantity, ORDER_QUANTITY)) {
    details.push({ field: 'quantity', message: boundsRule(ORDER_QUANTITY) });
  }
  if (shipDate !== undefined && !isContractDateTime(shipDate)) {
    details.push({ field: 'shipDate', message: SHIP_DATE_RULE });
  }
  if (details.length) throw new DomainError(400, 'VALIDATION_FAILED', 'The order is not valid', details);
  return { petId, quantity, shipDate: shipDate === undefined ? null : new Date(shipDate) };
}

/** API.md §3 (`isContractDateTime`, the rule the gateway checks too). */
const SHIP_DATE_RULE = 'must be an RFC 3339 date-time from 1970-01-01T00:00:00Z to 9999-12-31T23:59:59Z';

function parseShipDate(shipDate: string): Date {
  if (!isContractDateTime(shipDate)) {
    throw new DomainError(400, 'VALIDATION_FAILED', 'The shipDate is not valid', [{ field: 'shipDate', message: SHIP_DATE_RULE }]);
  }
  return new Date(shipDate);
}
