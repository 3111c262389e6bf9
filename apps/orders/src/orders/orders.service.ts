import { LockMode } from '@mikro-orm/core';
import { EntityManager, type FilterQuery } from '@mikro-orm/postgresql';
import { Injectable, Logger } from '@nestjs/common';
import {
  OrderCancelled,
  OrderDelivered,
  OrderPlaced,
  type CancelOrderCommand,
  type ById,
  type EventMeta,
  type FulfilOrderCommand,
  type ListOrdersQuery,
  type NewOrder,
  type Order as OrderView,
  type Page,
  type PlaceOrderCommand,
  type PlaceOrderResult,
  type RejectionReason,
} from '@petstore/contracts';
import { OutboxWriter } from '@petstore/messaging';
import { DomainError, pageCursor, pageLimit, pageOf, parsePathId } from '@petstore/service-kit';
import { ORDERS_PRODUCER } from '../config';
import { KnownPetsService } from '../pets/known-pets.service';
import { IdempotencyKeys, isKeyLockTimeout, keyInUse } from './idempotency-keys';
import { Order } from './order.entity';
import { nextStatus, OPEN_ORDER_STATUSES, type OrderAction } from './order-transitions';
import { toOrderView } from './order.view';

const MAX_QUANTITY = 1000;

function requestMeta(requestId: string): EventMeta {
  return { producer: ORDERS_PRODUCER, correlationId: requestId };
}

function orderNotFound(id: string | number): DomainError {
  return new DomainError(404, 'ORDER_NOT_FOUND', `Order ${id} does not exist`);
}

/**
 * RPC methods expect a request context (the controller creates one per message); the
 * methods that react to events run in the consumer's transaction, passed in as `em`.
 */
@Injectable()
export class OrdersService {
  private readonly logger = new Logger(OrdersService.name);

  constructor(
    private readonly em: EntityManager,
    private readonly outbox: OutboxWriter,
    private readonly pets: KnownPetsService,
    private readonly keys: IdempotencyKeys,
  ) {}

  async place({ order: input, idempotency, requestId }: PlaceOrderCommand): Promise<PlaceOrderResult> {
    const fields = newOrderFields(input);
    try {
      return await this.em.transactional(async (em) => {
        if (idempotency) {
          const claim = await this.keys.claim(em, idempotency);
          if (claim.kind === 'replay') return { order: claim.order, replayed: true };
        }
        let view = await this.insertForKnownPet(em, fields);
        if (!view) {
          await this.pets.assertOrderable(em, fields.petId, requestId);
          const order = em.create(Order, fields);
          await em.flush();
          view = toOrderView(order);
        }
        this.outbox.add(
          em,
          OrderPlaced.create({ orderId: view.id, petId: view.petId, quantity: view.quantity }, requestMeta(requestId)),
        );
        if (idempotency) await this.keys.remember(em, idempotency, view);
        return { order: view, replayed: false };
      });
    } catch (error) {
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
    const order = orderId === undefined ? null : await this.em.findOne(Order, orderId);
    if (!order) throw orderNotFound(id);
    return toOrderView(order);
  }

  async fulfil({ id, shipDate, requestId }: FulfilOrderCommand): Promise<OrderView> {
    return this.em.transactional(async (em) => {
      const order = await this.lock(em, id);
      if (!transition(order, 'deliver')) {
        throw new DomainError(409, 'ORDER_NOT_APPROVED', `Order ${order.id} is ${order.status}: only an approved order can be fulfilled`);
      }
      if (shipDate !== undefined) order.shipDate = parseShipDate(shipDate);
      this.outbox.add(
        em,
        OrderDelivered.create({ orderId: order.id, petId: order.petId, quantity: order.quantity }, requestMeta(requestId)),
      );
      return toOrderView(order);
    });
  }

  async cancel({ id, requestId }: CancelOrderCommand): Promise<OrderView> {
    return this.em.transactional(async (em) => {
      const order = await this.lock(em, id);
      if (!this.cancelOrder(em, order, requestMeta(requestId))) {
        throw new DomainError(409, 'ORDER_NOT_CANCELLABLE', `Order ${order.id} is ${order.status}: only a placed or approved order can be cancelled`);
      }
      return toOrderView(order);
    });
  }

  /** StockReserved. A decision about an order cancelled meanwhile changes nothing: the cancellation gives the stock back. */
  async approve(em: EntityManager, orderId: number): Promise<void> {
    await this.decide(em, orderId, 'approve', null);
  }

  /** StockReservationRejected. */
  async reject(em: EntityManager, orderId: number, reason: RejectionReason): Promise<void> {
    await this.decide(em, orderId, 'reject', reason);
  }

  /** PetDeleted: the pet's open orders are cancelled, and inventory hears of each. Its past orders stay as they are. */
  async cancelOpenOrdersOf(em: EntityManager, petId: number, meta: EventMeta): Promise<number> {
    const open = await em.find(
      Order,
      { petId, status: { $in: [...OPEN_ORDER_STATUSES] } },
      { orderBy: { id: 'asc' }, lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true },
    );
    for (const order of open) this.cancelOrder(em, order, meta);
    return open.length;
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

  /**
   * The common case in one statement: the pet is known and not deleted. The share lock on its
   * replica row makes a concurrent PetDeleted wait for this order, so the deletion cancels it
   * too. Nothing is inserted for a pet not known (yet) or deleted: the caller asks the long way.
   */
  private async insertForKnownPet(
    em: EntityManager,
    { petId, quantity, shipDate }: Pick<Order, 'petId' | 'quantity' | 'shipDate'>,
  ): Promise<OrderView | undefined> {
    if (!Number.isSafeInteger(petId)) return undefined;
    const [row] = await em.execute<{ id: string }[]>(
      `insert into store_order (pet_id, quantity, ship_date)
       select ?::bigint, ?::integer, ?::timestamptz from known_pet where pet_id = ? and not deleted for share
       returning id`,
      [petId, quantity, shipDate, petId],
    );
    if (!row) return undefined;
    const order = Object.assign(new Order(), { id: Number(row.id), petId, quantity, shipDate });
    return toOrderView(order);
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

  /**
   * The inventory's decision in one statement: the condition on the status plays the part of
   * the row lock and the transition check, so a concurrent cancel either went first (nothing
   * changes here) or waits for this one.
   */
  private async decide(
    em: EntityManager,
    orderId: number,
    action: 'approve' | 'reject',
    reason: RejectionReason | null,
  ): Promise<void> {
    const rows = await em.execute<{ id: string }[]>(
      `update store_order set status = ?, rejection_reason = ?, updated_at = now()
       where id = ? and status = 'placed' returning id`,
      [nextStatus('placed', action), reason, orderId],
    );
    if (rows.length === 0) this.logger.debug(`Order ${orderId} is not (or no longer) placed: ${action} ignored`);
  }
}

function transition(order: Order, action: OrderAction): boolean {
  const next = nextStatus(order.status, action);
  if (!next) return false;
  order.status = next;
  return true;
}

/** The gateway validates the body against the contract; this keeps the table's rules even for another caller. */
function newOrderFields(order: NewOrder): Pick<Order, 'petId' | 'quantity' | 'shipDate'> {
  const { petId, quantity, shipDate } = order ?? ({} as NewOrder);
  const details = [];
  if (typeof petId !== 'number' || !Number.isInteger(petId) || petId < 1) {
    details.push({ field: 'petId', message: 'must be a positive integer' });
  }
  if (typeof quantity !== 'number' || !Number.isInteger(quantity) || quantity < 1 || quantity > MAX_QUANTITY) {
    details.push({ field: 'quantity', message: `must be an integer from 1 to ${MAX_QUANTITY}` });
  }
  if (shipDate !== undefined && Number.isNaN(Date.parse(shipDate))) {
    details.push({ field: 'shipDate', message: 'must be an RFC 3339 date-time' });
  }
  if (details.length) throw new DomainError(400, 'VALIDATION_FAILED', 'The order is not valid', details);
  return { petId, quantity, shipDate: shipDate === undefined ? null : new Date(shipDate) };
}

function parseShipDate(shipDate: string): Date {
  const value = new Date(shipDate);
  if (Number.isNaN(value.getTime())) {
    throw new DomainError(400, 'VALIDATION_FAILED', 'The shipDate is not valid', [
      { field: 'shipDate', message: 'must be an RFC 3339 date-time' },
    ]);
  }
  return value;
}
