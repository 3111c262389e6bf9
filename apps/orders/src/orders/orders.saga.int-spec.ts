import { randomUUID } from 'node:crypto';
import {
  CatalogPatterns,
  InventoryPatterns,
  OrderCancelled,
  OrderDelivered,
  OrderPlaced,
  OrdersPatterns,
  PetCreated,
  PetDeleted,
  PetStatusRecomputed,
  PetUpdated,
  StockReleased,
  StockReservationRejected,
  StockReserved,
  Topics,
  deadLetterTopic,
  type Category,
  type EventEnvelope,
  type InventoryItem,
  type Order,
  type Page,
  type Pet,
  type PetStatus,
  type AwaitOrderResult,
  type PlaceOrderResult,
} from '@petstore/contracts';
import {
  eventually,
  EventProbe,
  EventPublisher,
  startBuiltService,
  startServiceForTest,
  testDatabaseUrl,
  uniqueNamespace,
  type BuiltService,
  type RunningService,
} from '@petstore/testing';
import { Client } from 'pg';
import { register } from 'prom-client';
import type { OrdersConfig } from '../config';
import { ordersRecipe } from '../testing/orders-recipe';

jest.setTimeout(60_000);

/**
 * The order saga end to end across orders, inventory and the catalog, each with its own
 * database, talking over TCP and a Kafka namespace of this suite's own. Orders runs in this
 * process; inventory and the catalog run as their own processes from their bundles. Pets are
 * mostly seeded as the catalog would announce them (PetCreated on its topic); the catalog
 * answers the read-your-writes lookups of orders and inventory.
 */
describe('order saga', () => {
  const namespace = uniqueNamespace('orders');
  const inventoryDatabaseUrl = testDatabaseUrl('inventory_for_orders');
  let probe: EventProbe;
  let publisher: EventPublisher;
  let catalog: BuiltService;
  let orders: RunningService<OrdersConfig>;
  let inventory: BuiltService;
  let nextPetId = 1_000_001;

  beforeAll(async () => {
    probe = await EventProbe.start({
      namespace,
      topics: [
        Topics.catalogPet,
        Topics.ordersOrder,
        Topics.inventoryStock,
        Topics.inventoryPetStatus,
        deadLetterTopic('orders'),
      ],
    });
    publisher = await EventPublisher.start(namespace);
    catalog = await startBuiltService('catalog', { namespace, databaseUrl: testDatabaseUrl('catalog_for_orders') });
    const env = { CATALOG_RPC: catalog.rpcAddress };
    [orders, inventory] = await Promise.all([
      startServiceForTest(ordersRecipe, { namespace, databaseUrl: testDatabaseUrl('orders'), env }),
      startBuiltService('inventory', { namespace, databaseUrl: inventoryDatabaseUrl, env }),
    ]);
  });

  afterAll(async () => {
    await Promise.allSettled([orders?.close(), inventory?.stop(), catalog?.stop()]);
    await Promise.allSettled([probe?.stop(), publisher?.stop()]);
  });

  /** A pet as the catalog announces it; resolves once orders and inventory both know it. */
  async function seedPet(status: PetStatus = 'available', stock?: number): Promise<number> {
    const id = nextPetId++;
    await publisher.publish(PetCreated.create({ pet: { id, name: `Pet ${id}`, categoryId: 1, status } }, { producer: 'catalog' }));
    await eventually(async () => expect(await orders.sql('select 1 from known_pet where pet_id = ?', [id])).toHaveLength(1));
    await eventually(async () =>
      expect(await inventory.sql('select 1 from inventory_entry where pet_id = ?', [id])).toHaveLength(1),
    );
    if (stock !== undefined) await setStock(id, stock);
    return id;
  }

  const place = (petId: number, quantity: number, extra: object = {}) =>
    orders.send<PlaceOrderResult>(OrdersPatterns.placeOrder, { order: { petId, quantity }, ...extra });
  const getOrder = (id: number) => orders.send<Order>(OrdersPatterns.getOrder, { id: String(id) });
  const fulfil = (id: number, shipDate?: string) =>
    orders.send<Order>(OrdersPatterns.fulfilOrder, { id: String(id), ...(shipDate && { shipDate }) });
  const cancel = (id: number) => orders.send<Order>(OrdersPatterns.cancelOrder, { id: String(id) });
  const item = (petId: number) => inventory.send<InventoryItem>(InventoryPatterns.getInventoryItem, { petId: String(petId) });
  const setStock = (petId: number, quantity: number) =>
    inventory.send<InventoryItem>(InventoryPatterns.setStock, { petId: String(petId), quantity });

  const orderBecomes = (id: number, status: Order['status']) =>
    eventually(async () => {
      const order = await getOrder(id);
      expect(order.status).toBe(status);
      return order;
    });
  const decisionOf = (orderId: number) =>
    probe.waitFor(
      (event) =>
        (StockReserved.is(event) || StockReservationRejected.is(event)) &&
        (event.payload as { orderId: number }).orderId === orderId,
    );
  const eventsAbout = (orderId: number): EventEnvelope[] =>
    probe.all().filter((event) => (event.payload as { orderId?: number }).orderId === orderId);

  describe('an approved order', () => {
    it('takes its units from the stock and, once delivered, leaves the pet sold', async () => {
      const petId = await seedPet('available', 2);
      const { order, replayed } = await place(petId, 2);
      expect(replayed).toBe(false);
      expect(order).toEqual({ id: expect.any(Number), petId, quantity: 2, status: 'placed', complete: false });
      await probe.waitForEvent(OrderPlaced, (event) => event.payload.orderId === order.id);

      const reserved = await probe.waitForEvent(StockReserved, (event) => event.payload.orderId === order.id);
      expect(reserved.payload).toEqual({ orderId: order.id, petId, quantity: 2, remaining: 0 });
      expect(reserved.key).toBe(String(petId));
      await orderBecomes(order.id, 'approved');
      expect(await item(petId)).toEqual({ petId, quantity: 0, status: 'pending' });

      const delivered = await fulfil(order.id, '2026-12-01T10:00:00Z');
      expect(delivered).toEqual({
        id: order.id,
        petId,
        quantity: 2,
        shipDate: '2026-12-01T10:00:00.000Z',
        status: 'delivered',
        complete: true,
      });
      const deliveredEvent = await probe.waitForEvent(OrderDelivered, (event) => event.payload.orderId === order.id);
      const recomputed = await probe.waitForEvent(PetStatusRecomputed, (event) => event.causationId === deliveredEvent.eventId);
      expect(recomputed.payload).toEqual({ petId, status: 'sold', quantity: 0 });
      expect(await item(petId)).toEqual({ petId, quantity: 0, status: 'sold' });
      expect(await getOrder(order.id)).toEqual(delivered);
    });

    it('gives its units back when cancelled', async () => {
      const petId = await seedPet('available', 3);
      const { order } = await place(petId, 2);
      await orderBecomes(order.id, 'approved');
      expect(await item(petId)).toEqual({ petId, quantity: 1, status: 'available' });

      expect(await cancel(order.id)).toMatchObject({ id: order.id, status: 'cancelled', complete: false });
      const cancelled = await probe.waitForEvent(OrderCancelled, (event) => event.payload.orderId === order.id);
      expect(cancelled.payload).toEqual({ orderId: order.id, petId, quantity: 2, previousStatus: 'approved' });
      const released = await probe.waitForEvent(StockReleased, (event) => event.payload.orderId === order.id);
      expect(released.payload).toEqual({ orderId: order.id, petId, quantity: 2 });
      expect(await item(petId)).toEqual({ petId, quantity: 3, status: 'available' });
      expect(await getOrder(order.id)).toMatchObject({ status: 'cancelled' });
    });
  });

  describe('a rejected order', () => {
    it('is refused for a pet whose status is not available, whatever its stock, and changes no stock', async () => {
      const petId = await seedPet('available', 5);
      // A client sets the status through the catalog: inventory mirrors it.
      await publisher.publish(
        PetUpdated.create(
          { pet: { id: petId, name: `Pet ${petId}`, categoryId: 1, status: 'sold' }, previousStatus: 'available' },
          { producer: 'catalog' },
        ),
      );
      await eventually(async () => expect(await item(petId)).toEqual({ petId, quantity: 5, status: 'sold' }));

      const { order } = await place(petId, 1);
      const decision = await decisionOf(order.id);
      expect(decision.payload).toEqual({ orderId: order.id, petId, quantity: 1, reason: 'PET_NOT_AVAILABLE' });
      expect(await orderBecomes(order.id, 'rejected')).toEqual({
        id: order.id,
        petId,
        quantity: 1,
        status: 'rejected',
        complete: false,
        rejectionReason: 'PET_NOT_AVAILABLE',
      });
      expect(await item(petId)).toEqual({ petId, quantity: 5, status: 'sold' });
      // A rejection is not a change of stock: nothing was recomputed because of it.
      expect(probe.all().some((event) => PetStatusRecomputed.is(event) && event.causationId === decision.causationId)).toBe(false);
    });

    it('is refused when the stock is short', async () => {
      const petId = await seedPet('available', 1);
      const { order } = await place(petId, 2);
      expect((await decisionOf(order.id)).payload).toEqual({ orderId: order.id, petId, quantity: 2, reason: 'INSUFFICIENT_STOCK' });
      expect(await orderBecomes(order.id, 'rejected')).toMatchObject({ rejectionReason: 'INSUFFICIENT_STOCK' });
      expect(await item(petId)).toEqual({ petId, quantity: 1, status: 'available' });
    });

    it('is refused as an unknown pet when the inventory finds no such pet anywhere', async () => {
      // Orders heard of the pet, which the catalog no longer has and inventory never heard of.
      const petId = nextPetId++;
      await orders.sql('insert into known_pet (pet_id, deleted) values (?, false)', [petId]);
      const { order } = await place(petId, 1);
      expect((await decisionOf(order.id)).payload).toEqual({ orderId: order.id, petId, quantity: 1, reason: 'UNKNOWN_PET' });
      expect(await orderBecomes(order.id, 'rejected')).toMatchObject({ rejectionReason: 'UNKNOWN_PET' });
      expect(await inventory.refusal(InventoryPatterns.getInventoryItem, { petId: String(petId) })).toMatchObject({
        status: 404,
        code: 'INVENTORY_ITEM_NOT_FOUND',
      });
    });
  });

  it('lets no stock stay with an order cancelled before the inventory decided it', async () => {
    const petId = await seedPet('available', 2);
    // Hold the pet's inventory row so that the decision has to wait for the cancellation.
    const blocker = new Client({ connectionString: inventoryDatabaseUrl });
    await blocker.connect();
    try {
      await blocker.query('begin');
      await blocker.query('select * from inventory_entry where pet_id = $1 for update', [petId]);
      const { order } = await place(petId, 2);
      expect(await cancel(order.id)).toMatchObject({ status: 'cancelled' });
      const cancelled = await probe.waitForEvent(OrderCancelled, (event) => event.payload.orderId === order.id);
      expect(cancelled.payload.previousStatus).toBe('placed');
      expect(eventsAbout(order.id).filter((event) => StockReserved.is(event) || StockReservationRejected.is(event))).toEqual([]);
      await blocker.query('rollback');

      // The decision comes after all and is undone by the cancellation behind it on the pet's partition.
      await probe.waitForEvent(StockReleased, (event) => event.payload.orderId === order.id);
      await eventually(async () => expect(await item(petId)).toEqual({ petId, quantity: 2, status: 'available' }));
      expect(await getOrder(order.id)).toMatchObject({ status: 'cancelled' });
    } finally {
      await blocker.end();
    }
  });

  it("cancels a deleted pet's open orders and keeps its past ones", async () => {
    const petId = await seedPet('available', 5);
    const delivered = (await place(petId, 1)).order;
    await orderBecomes(delivered.id, 'approved');
    await fulfil(delivered.id);
    const approved = (await place(petId, 2)).order;
    await orderBecomes(approved.id, 'approved');
    const rejected = (await place(petId, 10)).order;
    await orderBecomes(rejected.id, 'rejected');

    await publisher.publish(PetDeleted.create({ petId }, { producer: 'catalog' }));
    const cancelled = await probe.waitForEvent(OrderCancelled, (event) => event.payload.orderId === approved.id);
    expect(cancelled.payload).toEqual({ orderId: approved.id, petId, quantity: 2, previousStatus: 'approved' });
    expect(await getOrder(approved.id)).toMatchObject({ status: 'cancelled' });
    expect(await getOrder(delivered.id)).toMatchObject({ status: 'delivered', complete: true });
    expect(await getOrder(rejected.id)).toMatchObject({ status: 'rejected' });
    await probe.waitForEvent(StockReleased, (event) => event.payload.orderId === approved.id);

    await eventually(async () =>
      expect(await inventory.refusal(InventoryPatterns.getInventoryItem, { petId: String(petId) })).toMatchObject({
        status: 404,
        code: 'INVENTORY_ITEM_NOT_FOUND',
      }),
    );
    expect(await orders.refusal(OrdersPatterns.placeOrder, { order: { petId, quantity: 1 } })).toMatchObject({
      status: 422,
      code: 'UNKNOWN_PET',
    });
  });

  describe('read your writes', () => {
    async function createPet(name: string): Promise<Pet> {
      const category = await catalog.send<Category>(CatalogPatterns.createCategory, { category: { name: `Cats ${name}` } });
      return catalog.send<Pet>(CatalogPatterns.createPet, { pet: { name, categoryId: category.id, status: 'available' } });
    }

    it('takes an order for a pet created a moment ago, before any event about it arrived', async () => {
      const pet = await createPet('Just born');
      const { order } = await place(pet.id, 1);
      expect(order).toMatchObject({ petId: pet.id, status: 'placed' });
      expect(await item(pet.id)).toEqual({ petId: pet.id, quantity: 0, status: 'available' });
      expect((await decisionOf(order.id)).payload).toMatchObject({ reason: 'INSUFFICIENT_STOCK' });
    });

    it('sets the stock of a pet created a moment ago, and the catalog follows the status', async () => {
      const pet = await createPet('Fresh');
      expect(await setStock(pet.id, 4)).toEqual({ petId: pet.id, quantity: 4, status: 'available' });
      const { order } = await place(pet.id, 4);
      await orderBecomes(order.id, 'approved');
      expect(await item(pet.id)).toEqual({ petId: pet.id, quantity: 0, status: 'pending' });
      await eventually(async () => expect(await catalog.send<Pet>(CatalogPatterns.getPet, { id: String(pet.id) })).toMatchObject({ status: 'pending' }));
    });

    it('refuses a pet the catalog does not have', async () => {
      expect(await orders.refusal(OrdersPatterns.placeOrder, { order: { petId: 987_654_321, quantity: 1 } })).toMatchObject({
        status: 422,
        code: 'UNKNOWN_PET',
      });
      expect(await inventory.refusal(InventoryPatterns.setStock, { petId: '987654321', quantity: 1 })).toMatchObject({
        status: 404,
        code: 'INVENTORY_ITEM_NOT_FOUND',
      });
    });
  });

  describe('placements that arrive together', () => {
    it('are placed together, each on its own terms: an unknown pet refuses only its own request', async () => {
      const petId = await seedPet('available', 100);
      const requests = Array.from({ length: 30 }, (_, i) =>
        i % 10 === 5 ? orders.refusal(OrdersPatterns.placeOrder, { order: { petId: 987_654_000 + i, quantity: 1 } }) : place(petId, 1),
      );
      const answers = await Promise.all(requests);
      const placed = answers.filter((answer): answer is PlaceOrderResult => 'order' in (answer as object));
      expect(placed).toHaveLength(27);
      expect(new Set(placed.map(({ order }) => order.id)).size).toBe(27);
      expect(answers.filter((answer) => !('order' in (answer as object)))).toEqual(
        Array.from({ length: 3 }, () => expect.objectContaining({ status: 422, code: 'UNKNOWN_PET' })),
      );
      // Each order's event carries its own id.
      for (const { order } of placed) {
        const event = await probe.waitForEvent(OrderPlaced, (e) => e.payload.orderId === order.id);
        expect(event.payload).toEqual({ orderId: order.id, petId, quantity: 1 });
      }
    });

    it('refuses a shipDate outside 1970..9999 once its offset is applied, placing nothing', async () => {
      const petId = await seedPet('available', 1);
      for (const shipDate of ['9999-12-31T23:59:59-23:59', '1969-12-31T23:59:59Z']) {
        expect(await orders.refusal(OrdersPatterns.placeOrder, { order: { petId, quantity: 1, shipDate } })).toMatchObject({
          status: 400,
          code: 'VALIDATION_FAILED',
          details: [{ field: 'shipDate', message: expect.stringContaining('9999-12-31T23:59:59Z') }],
        });
      }
      const page = await orders.send<Page<Order>>(OrdersPatterns.listOrders, { petId, limit: 10, after: 0 });
      expect(page.items).toEqual([]);
    });
  });

  describe('queries and refusals', () => {
    it('lists orders by pet, status and completion, a page at a time', async () => {
      const petId = await seedPet('available', 2);
      const first = (await place(petId, 1)).order;
      await orderBecomes(first.id, 'approved');
      await fulfil(first.id);
      const second = (await place(petId, 1)).order;
      await orderBecomes(second.id, 'approved');
      const third = (await place(petId, 1)).order;
      await orderBecomes(third.id, 'rejected');

      const list = (query: object) => orders.send<Page<Order>>(OrdersPatterns.listOrders, { limit: 20, after: 0, petId, ...query });
      const ids = (page: Page<Order>) => page.items.map((order) => order.id);
      expect(ids(await list({}))).toEqual([first.id, second.id, third.id]);
      expect(await list({ limit: 2 })).toMatchObject({ hasMore: true, items: [{ id: first.id }, { id: second.id }] });
      expect(await list({ limit: 2, after: second.id })).toMatchObject({ hasMore: false, items: [{ id: third.id }] });
      expect(ids(await list({ status: ['approved', 'rejected'] }))).toEqual([second.id, third.id]);
      expect(ids(await list({ complete: true }))).toEqual([first.id]);
      expect(ids(await list({ complete: false }))).toEqual([second.id, third.id]);
      expect(ids(await list({ complete: true, status: ['approved'] }))).toEqual([]);
    });

    it('answers 404 for an order that does not exist, even beyond 2^53', async () => {
      for (const id of ['999999999', '9223372036854775807']) {
        expect(await orders.refusal(OrdersPatterns.getOrder, { id })).toMatchObject({ status: 404, code: 'ORDER_NOT_FOUND' });
        expect(await orders.refusal(OrdersPatterns.cancelOrder, { id })).toMatchObject({ status: 404, code: 'ORDER_NOT_FOUND' });
      }
    });

    it('fulfils only approved orders and cancels only open ones', async () => {
      const petId = await seedPet('available', 0);
      const { order } = await place(petId, 1);
      expect(await orders.refusal(OrdersPatterns.fulfilOrder, { id: String(order.id) })).toMatchObject({
        status: 409,
        code: 'ORDER_NOT_APPROVED',
      });
      await orderBecomes(order.id, 'rejected');
      expect(await orders.refusal(OrdersPatterns.cancelOrder, { id: String(order.id) })).toMatchObject({
        status: 409,
        code: 'ORDER_NOT_CANCELLABLE',
      });
      expect(eventsAbout(order.id).filter((event) => OrderCancelled.is(event) || OrderDelivered.is(event))).toEqual([]);
    });
  });

  describe('Idempotency-Key', () => {
    const scope = 'test-key';
    const keyed = (key: string, body: { petId: number; quantity: number }, keyScope = scope) => ({
      order: body,
      idempotency: { scope: keyScope, key, fingerprint: JSON.stringify(body) },
    });
    const orderCount = async (petId: number) =>
      Number((await orders.sql<{ n: string }>('select count(*) as n from store_order where pet_id = ?', [petId]))[0].n);

    it('answers a repeated request with the first order, as it was then, and places nothing', async () => {
      const petId = await seedPet('available', 5);
      const body = { petId, quantity: 1 };
      const first = await orders.send<PlaceOrderResult>(OrdersPatterns.placeOrder, keyed('k-replay', body));
      await orderBecomes(first.order.id, 'approved');
      const again = await orders.send<PlaceOrderResult>(OrdersPatterns.placeOrder, keyed('k-replay', body));
      expect(again).toEqual({ order: first.order, replayed: true });
      expect(await orderCount(petId)).toBe(1);
      // Keys belong to the API key that sent them.
      const elsewhere = await orders.send<PlaceOrderResult>(OrdersPatterns.placeOrder, keyed('k-replay', body, 'other-key'));
      expect(elsewhere.replayed).toBe(false);
      expect(elsewhere.order.id).not.toBe(first.order.id);
    });

    it('refuses the key with another body', async () => {
      const petId = await seedPet('available', 5);
      await orders.send(OrdersPatterns.placeOrder, keyed('k-reused', { petId, quantity: 1 }));
      expect(await orders.refusal(OrdersPatterns.placeOrder, keyed('k-reused', { petId, quantity: 2 }))).toMatchObject({
        status: 422,
        code: 'IDEMPOTENCY_KEY_REUSED',
      });
      expect(await orderCount(petId)).toBe(1);
    });

    it('does not use up a key on a refused request', async () => {
      const petId = await seedPet('available', 5);
      expect(await orders.refusal(OrdersPatterns.placeOrder, keyed('k-refused', { petId: 987_000_001, quantity: 1 }))).toMatchObject({
        status: 422,
        code: 'UNKNOWN_PET',
      });
      const placed = await orders.send<PlaceOrderResult>(OrdersPatterns.placeOrder, keyed('k-refused', { petId, quantity: 1 }));
      expect(placed).toMatchObject({ replayed: false, order: { petId, status: 'placed' } });
    });

    it('places one order for concurrent requests with the same key: the others wait their turn or are told it is in use', async () => {
      const petId = await seedPet('available', 5);
      const request = keyed('k-concurrent', { petId, quantity: 1 });
      const answers = await Promise.all(
        Array.from({ length: 8 }, () =>
          orders.send<PlaceOrderResult>(OrdersPatterns.placeOrder, request).then(
            (result) => ({ result }),
            (error: { code: string }) => ({ error }),
          ),
        ),
      );
      const placed = answers.flatMap((answer) => ('result' in answer && !answer.result.replayed ? [answer.result.order] : []));
      const replayed = answers.flatMap((answer) => ('result' in answer && answer.result.replayed ? [answer.result.order] : []));
      const refused = answers.flatMap((answer) => ('error' in answer ? [answer.error.code] : []));
      expect(placed).toHaveLength(1);
      expect(replayed.every((order) => order.id === placed[0].id)).toBe(true);
      expect(refused.every((code) => code === 'IDEMPOTENCY_KEY_IN_USE')).toBe(true);
      expect(await orderCount(petId)).toBe(1);
    });

    it('answers 409 while the first request with the key is still running, and lets the key be used once it failed', async () => {
      const petId = await seedPet('available', 5);
      const request = keyed('k-running', { petId, quantity: 1 });
      // Another request holds the key: its transaction has written the row and not finished yet.
      const first = new Client({ connectionString: testDatabaseUrl('orders') });
      await first.connect();
      try {
        await first.query('begin');
        await first.query(`insert into idempotency_key (scope, key, fingerprint) values ($1, 'k-running', 'x')`, [scope]);
        expect(await orders.refusal(OrdersPatterns.placeOrder, request)).toMatchObject({
          status: 409,
          code: 'IDEMPOTENCY_KEY_IN_USE',
        });
        await first.query('rollback');
      } finally {
        await first.end();
      }
      expect(await orders.send(OrdersPatterns.placeOrder, request)).toMatchObject({ replayed: false, order: { petId } });
    });

    it('lets a key be used afresh after 24 hours', async () => {
      const petId = await seedPet('available', 5);
      const request = keyed('k-expired', { petId, quantity: 1 });
      const first = await orders.send<PlaceOrderResult>(OrdersPatterns.placeOrder, request);
      await orders.sql(`update idempotency_key set created_at = now() - interval '25 hours' where key = 'k-expired'`);
      const second = await orders.send<PlaceOrderResult>(OrdersPatterns.placeOrder, request);
      expect(second.replayed).toBe(false);
      expect(second.order.id).not.toBe(first.order.id);
      expect(await orders.send(OrdersPatterns.placeOrder, request)).toEqual({ order: second.order, replayed: true });
    });
  });

  it('approves exactly as many of 50 concurrent orders as there are units', async () => {
    const petId = await seedPet('available', 10);
    const placed = await Promise.all(Array.from({ length: 50 }, () => place(petId, 1)));
    const orderIds = placed.map(({ order }) => order.id);
    expect(new Set(orderIds).size).toBe(50);
    const decisions = await eventually(() => {
      const seen = probe.all().filter((event) => orderIds.includes((event.payload as { orderId?: number }).orderId ?? 0));
      const decided = seen.filter((event) => StockReserved.is(event) || StockReservationRejected.is(event));
      expect(decided).toHaveLength(50);
      return decided;
    }, 30_000);
    expect(decisions.filter((event) => StockReserved.is(event))).toHaveLength(10);
    // Sold out, the pet is pending: that is the first reason that applies to the other 40.
    expect(
      decisions.filter((event) => StockReservationRejected.is(event) && event.payload.reason === 'PET_NOT_AVAILABLE'),
    ).toHaveLength(40);
    expect(await item(petId)).toEqual({ petId, quantity: 0, status: 'pending' });

    await eventually(async () => {
      const page = await orders.send<Page<Order>>(OrdersPatterns.listOrders, { petId, limit: 100, after: 0 });
      const count = (status: Order['status']) => page.items.filter((order) => order.status === status).length;
      expect([count('approved'), count('rejected')]).toEqual([10, 40]);
    });
  });

  describe('forged events', () => {
    /** What this process's orders service exports on /metrics. */
    async function metricValue(name: string, labels: Record<string, string> = {}): Promise<number | undefined> {
      const values = (await register.getSingleMetric(name)?.get())?.values ?? [];
      return values.find((one) => Object.entries(labels).every(([key, value]) => one.labels[key] === value))?.value;
    }
    const refused = async (reason: string) =>
      (await metricValue('petstore_consumer_refused_total', { topic: `${namespace}${Topics.inventoryStock}`, reason })) ?? 0;
    const deadLettered = (eventId: string) =>
      probe.waitForMessage((m) => m.topic === deadLetterTopic('orders') && m.envelope?.eventId === eventId);

    it('stop no decision: one in a foreign name and one numbered far ahead are refused, the real ones after them applied', async () => {
      const [foreignBefore, implausibleBefore] = [await refused('foreign-producer'), await refused('implausible-publication-number')];
      const petId = await seedPet('available', 10);
      const { order: first } = await place(petId, 1);
      await orderBecomes(first.id, 'approved');
      const decision = await probe.waitForMessage(
        (m) => m.envelope !== undefined && StockReserved.is(m.envelope) && m.envelope.payload['orderId'] === first.id,
      );
      const original = decision.envelope as EventEnvelope;

      // The last decision written back to its partition under a fresh id: once numbered far
      // ahead of anything inventory published, once in orders' own name.
      const farAhead = { ...original, eventId: randomUUID() };
      await publisher.writeBack(decision, farAhead, { ...decision.headers, 'outbox-seq': '900000000000000' });
      const foreign = { ...original, eventId: randomUUID(), producer: 'orders' };
      await publisher.writeBack(decision, foreign, { 'event-type': original.type, 'event-id': foreign.eventId });

      const after = [];
      for (let i = 0; i < 3; i++) after.push((await place(petId, 2)).order);
      for (const order of after) await orderBecomes(order.id, 'approved');
      expect(await item(petId)).toEqual({ petId, quantity: 3, status: 'available' });
      expect(await getOrder(first.id)).toMatchObject({ status: 'approved' });

      const [deadFarAhead, deadForeign] = [await deadLettered(farAhead.eventId), await deadLettered(foreign.eventId)];
      expect(deadFarAhead.headers['dead-letter-error']).toMatch(/^implausible-publication-number: publication number 900000000000000 /);
      expect(deadForeign.headers['dead-letter-error']).toBe(
        `foreign-producer: producer 'orders' does not own ${Topics.inventoryStock} (its owner is inventory)`,
      );
      expect([await refused('foreign-producer'), await refused('implausible-publication-number')]).toEqual([
        foreignBefore + 1,
        implausibleBefore + 1,
      ]);
    });

    it('exports the age of the oldest order still placed, and 0 once every order is decided', async () => {
      const [row] = await orders.sql<{ id: string }>(
        `insert into store_order (pet_id, quantity, created_at) values (?, 1, now() - interval '10 minutes') returning id`,
        [await seedPet('available', 1)],
      );
      try {
        await eventually(async () => expect(await metricValue('petstore_orders_oldest_placed_age_seconds')).toBeGreaterThanOrEqual(600));
      } finally {
        await orders.sql(`update store_order set status = 'cancelled' where id = ?`, [row.id]);
      }
      await eventually(async () => expect(await metricValue('petstore_orders_oldest_placed_age_seconds')).toBe(0));
    });
  });

  describe('Prefer: wait', () => {
    const awaitOrder = (service: RunningService<OrdersConfig>, id: number, waitSeconds: number) =>
      service.send<AwaitOrderResult>(OrdersPatterns.awaitOrder, { id: String(id), waitSeconds });
    /** An order no event will ever decide: written straight into the table, with no OrderPlaced. */
    async function undecidedOrder(petId: number): Promise<number> {
      const [row] = await orders.sql<{ id: string }>('insert into store_order (pet_id, quantity) values (?, 1) returning id', [petId]);
      return Number(row.id);
    }
    const timed = async <T>(work: () => Promise<T>): Promise<[T, number]> => {
      const started = Date.now();
      const result = await work();
      return [result, Date.now() - started];
    };

    it('answers a placement with its decision once inventory has made it', async () => {
      const petId = await seedPet('available', 1);
      const approved = await place(petId, 1, { waitSeconds: 5 });
      expect(approved).toEqual({
        order: { id: expect.any(Number), petId, quantity: 1, status: 'approved', complete: false },
        replayed: false,
        waitApplied: 5,
      });
      const rejected = await place(petId, 1, { waitSeconds: 5 });
      expect(rejected.order).toMatchObject({ status: 'rejected', rejectionReason: 'PET_NOT_AVAILABLE' });
      expect(rejected.waitApplied).toBe(5);
    });

    it('answers the order as it is when the wait elapses, and at once when it is already decided', async () => {
      const petId = await seedPet('available', 5);
      const id = await undecidedOrder(petId);
      const [held, heldMs] = await timed(() => awaitOrder(orders, id, 1));
      expect(held).toEqual({ order: expect.objectContaining({ id, status: 'placed' }), waitApplied: 1 });
      expect(heldMs).toBeGreaterThanOrEqual(950);

      const { order } = await place(petId, 1);
      await orderBecomes(order.id, 'approved');
      const [decided, decidedMs] = await timed(() => awaitOrder(orders, order.id, 10));
      expect(decided).toEqual({ order: expect.objectContaining({ id: order.id, status: 'approved' }), waitApplied: 10 });
      expect(decidedMs).toBeLessThan(5000);
    });

    it('answers a replayed Idempotency-Key at once with the stored answer, without applying the wait', async () => {
      const petId = await seedPet('available', 3);
      const request = {
        order: { petId, quantity: 1 },
        idempotency: { scope: 'wait', key: `k-${petId}`, fingerprint: `{"petId":${petId},"quantity":1}` },
        waitSeconds: 5,
      };
      const first = await orders.send<PlaceOrderResult>(OrdersPatterns.placeOrder, request);
      expect(first).toMatchObject({ replayed: false, waitApplied: 5, order: { status: 'approved' } });
      const [again, ms] = await timed(() => orders.send<PlaceOrderResult>(OrdersPatterns.placeOrder, request));
      expect(again).toEqual({ order: first.order, replayed: true });
      // Half the 5 s wait it would have had: clear on any machine.
      expect(ms).toBeLessThan(2500);
    });

    it('is released on every replica by the decision, whichever replica records it', async () => {
      const second = await startServiceForTest(ordersRecipe, {
        namespace,
        databaseUrl: testDatabaseUrl('orders'),
        resetDatabase: false,
        env: { CATALOG_RPC: catalog.rpcAddress },
      });
      try {
        const petId = await seedPet('available', 5);
        const viaEvent = await undecidedOrder(petId);
        const viaCancel = await undecidedOrder(petId);
        const held = [awaitOrder(orders, viaEvent, 10), awaitOrder(second, viaEvent, 10), awaitOrder(second, viaCancel, 10)];
        // Whichever replica consumes the decision, both hold an answer for it.
        await new Promise((resolve) => setTimeout(resolve, 200));
        await publisher.publish(StockReserved.create({ orderId: viaEvent, petId, quantity: 1, remaining: 4 }, { producer: 'inventory' }));
        await cancel(viaCancel); // recorded by the first replica
        const [onFirst, onSecond, cancelled] = await Promise.all(held);
        expect(onFirst.order.status).toBe('approved');
        expect(onSecond.order.status).toBe('approved');
        expect(cancelled.order.status).toBe('cancelled');
      } finally {
        await second.close();
      }
    });

    it('holds at most as many answers as configured, and answers the rest at once', async () => {
      const narrow = await startServiceForTest(ordersRecipe, {
        namespace,
        databaseUrl: testDatabaseUrl('orders'),
        resetDatabase: false,
        // Subjects of its own: over NATS the other replica would take half of what is sent to this one.
        env: { CATALOG_RPC: catalog.rpcAddress, MAX_HELD_ANSWERS: '1', NATS_SUBJECT_PREFIX: `${namespace.slice(0, -1)}-narrow.` },
      });
      try {
        const petId = await seedPet('available', 5);
        const [a, b] = [await undecidedOrder(petId), await undecidedOrder(petId)];
        const heldFirst = awaitOrder(narrow, a, 2);
        await new Promise((resolve) => setTimeout(resolve, 200));
        // Asked to wait 10 s; answered well before, however busy the machine is.
        const [answered, ms] = await timed(() => awaitOrder(narrow, b, 10));
        expect(answered).toEqual({ order: expect.objectContaining({ id: b, status: 'placed' }) });
        expect(ms).toBeLessThan(2500);
        expect(await heldFirst).toMatchObject({ waitApplied: 2 });
      } finally {
        await narrow.close();
      }
    });
  });

  // Last: it stops the catalog.
  it('answers 503 for a pet it cannot confirm while the catalog is down, and still takes orders for known pets', async () => {
    const petId = await seedPet('available', 1);
    await catalog.stop();
    expect(await orders.refusal(OrdersPatterns.placeOrder, { order: { petId: 987_000_002, quantity: 1 } })).toMatchObject({
      status: 503,
      code: 'SERVICE_UNAVAILABLE',
    });
    expect((await place(petId, 1)).order).toMatchObject({ status: 'placed' });
  });
});
