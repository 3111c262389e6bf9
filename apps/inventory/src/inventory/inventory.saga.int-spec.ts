import { randomUUID } from 'node:crypto';
import {
  InventoryPatterns,
  OrderCancelled,
  OrderPlaced,
  PetCreated,
  PetDeleted,
  PetStatusRecomputed,
  PetUpdated,
  StockReservationRejected,
  StockReserved,
  Topics,
  type EventEnvelope,
  type InventoryItem,
  type Page,
  type PetStatus,
} from '@petstore/contracts';
import { createKafkaClient, LogLevel } from '@petstore/kafka';
import { MessagingService } from '@petstore/messaging';
import {
  eventually,
  EventProbe,
  EventPublisher,
  freePort,
  startServiceForTest,
  testDatabaseUrl,
  testKafkaBrokers,
  uniqueNamespace,
  type RunningService,
} from '@petstore/testing';
import { INVENTORY_PRODUCER, type InventoryConfig } from '../config';
import { inventoryRecipe } from '../testing/inventory-recipe';

jest.setTimeout(60_000);

/**
 * Inventory's side of the saga: stock, status and reservations under redelivery and a
 * second replica. The other services are played by their events: pets are announced on the
 * catalog's topic and orders on the orders topic, as those services publish them. The
 * catalog does not run, so a lookup finds it down. (The saga through the orders service is
 * the orders project's suite.)
 */
describe('inventory', () => {
  const namespace = uniqueNamespace('inventory');
  const databaseUrl = testDatabaseUrl('inventory');
  let probe: EventProbe;
  let publisher: EventPublisher;
  let inventory: RunningService<InventoryConfig>;
  let catalogRpc: string;
  let nextPetId = 2_000_001;
  let nextOrderId = 900_000_001;

  beforeAll(async () => {
    probe = await EventProbe.start({
      namespace,
      topics: [Topics.catalogPet, Topics.ordersOrder, Topics.inventoryStock, Topics.inventoryPetStatus],
    });
    publisher = await EventPublisher.start(namespace);
    // Nothing listens there: the catalog is down for this suite.
    catalogRpc = `127.0.0.1:${await freePort()}`;
    inventory = await startServiceForTest(inventoryRecipe, {
      namespace,
      databaseUrl,
      env: { CATALOG_RPC: catalogRpc, CATALOG_LOOKUP_TIMEOUT_MS: '300' },
    });
  });

  afterAll(async () => {
    await inventory?.close();
    await Promise.allSettled([probe?.stop(), publisher?.stop()]);
  });

  /** A pet as the catalog announces it; resolves once inventory knows it. */
  async function seedPet(status: PetStatus = 'available', stock?: number): Promise<number> {
    const id = nextPetId++;
    await publisher.publish(PetCreated.create({ pet: { id, name: `Pet ${id}`, categoryId: 1, status } }, { producer: 'catalog' }));
    await eventually(async () =>
      expect(await inventory.sql('select 1 from inventory_entry where pet_id = ?', [id])).toHaveLength(1),
    );
    if (stock !== undefined) await setStock(id, stock);
    return id;
  }

  async function groupMembers(groupId: string): Promise<number> {
    const admin = createKafkaClient({ clientId: `${namespace}admin`, brokers: testKafkaBrokers(), logLevel: LogLevel.ERROR }).admin();
    await admin.connect();
    try {
      const { groups } = await admin.describeGroups([groupId]);
      return groups[0]?.members.length ?? 0;
    } finally {
      await admin.disconnect();
    }
  }

  /** Resolves once inventory has handled the event (its id is recorded with the effect). */
  const handled = (event: EventEnvelope) =>
    eventually(async () =>
      expect(
        await inventory.sql('select 1 from processed_event where consumer = ? and event_id = ?', [INVENTORY_PRODUCER, event.eventId]),
      ).toHaveLength(1),
    );

  const item = (petId: number) => inventory.send<InventoryItem>(InventoryPatterns.getInventoryItem, { petId: String(petId) });
  const setStock = (petId: number, quantity: number) =>
    inventory.send<InventoryItem>(InventoryPatterns.setStock, { petId: String(petId), quantity });
  const list = (query: object) =>
    inventory.send<Page<InventoryItem>>(InventoryPatterns.listInventory, { limit: 20, after: 0, ...query });
  /** An order as the orders service announces it; resolves with its id once published. */
  async function order(petId: number, quantity: number): Promise<number> {
    const orderId = nextOrderId++;
    await publisher.publish(OrderPlaced.create({ orderId, petId, quantity }, { producer: 'orders' }));
    return orderId;
  }

  const isDecision = (event: EventEnvelope) => StockReserved.is(event) || StockReservationRejected.is(event);
  const decisionsFor = (orderIds: number[]) => {
    const wanted = new Set(orderIds);
    return probe.all().filter((event) => isDecision(event) && wanted.has((event.payload as { orderId: number }).orderId));
  };
  const decisionOf = (orderId: number) =>
    probe.waitFor((event) => isDecision(event) && (event.payload as { orderId: number }).orderId === orderId);
  /** Waits until every order has at least one decision on the topic. */
  const allDecided = (orderIds: number[], timeoutMs = 30_000) =>
    eventually(() => {
      const decided = new Set(decisionsFor(orderIds).map((event) => (event.payload as { orderId: number }).orderId));
      expect(orderIds.filter((id) => !decided.has(id))).toEqual([]);
    }, timeoutMs);
  /** Order ids mapped to how many decisions each got. */
  const decisionCounts = (orderIds: number[]) => {
    const counts = new Map(orderIds.map((id) => [id, 0]));
    for (const event of decisionsFor(orderIds)) {
      const id = (event.payload as { orderId: number }).orderId;
      counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    return [...counts.values()];
  };

  describe('stock', () => {
    it('starts a new pet at quantity 0 with its own status, without a recompute', async () => {
      const petId = await seedPet('pending');
      expect(await item(petId)).toEqual({ petId, quantity: 0, status: 'pending' });
      expect(probe.all().some((event) => PetStatusRecomputed.is(event) && event.payload.petId === petId)).toBe(false);
    });

    it('sets the free stock, recomputes the status and publishes it', async () => {
      const petId = await seedPet('sold');
      expect(await setStock(petId, 7)).toEqual({ petId, quantity: 7, status: 'available' });
      const recomputed = await probe.waitForEvent(PetStatusRecomputed, (event) => event.payload.petId === petId);
      expect(recomputed.payload).toEqual({ petId, status: 'available', quantity: 7 });
      expect(recomputed.key).toBe(String(petId));

      // No stock and no open order: sold.
      expect(await setStock(petId, 0)).toEqual({ petId, quantity: 0, status: 'sold' });
      await probe.waitForEvent(PetStatusRecomputed, (event) => event.payload.petId === petId && event.payload.quantity === 0);
      expect(await setStock(petId, 1_000_000)).toEqual({ petId, quantity: 1_000_000, status: 'available' });
    });

    it('refuses a count outside 0..1,000,000 and a pet without an entry', async () => {
      const petId = await seedPet();
      for (const quantity of [-1, 1_000_001, 1.5]) {
        expect(await inventory.refusal(InventoryPatterns.setStock, { petId: String(petId), quantity })).toMatchObject({
          status: 400,
          code: 'VALIDATION_FAILED',
        });
      }
      expect(await item(petId)).toEqual({ petId, quantity: 0, status: 'available' });
      expect(await inventory.refusal(InventoryPatterns.getInventoryItem, { petId: '9223372036854775807' })).toMatchObject({
        status: 404,
        code: 'INVENTORY_ITEM_NOT_FOUND',
      });
      // A pet no event announced: only the catalog could tell, and it is down.
      expect(await inventory.refusal(InventoryPatterns.setStock, { petId: '123456', quantity: 1 })).toMatchObject({
        status: 503,
        code: 'SERVICE_UNAVAILABLE',
      });
    });

    it('lists entries by status, a page at a time in pet id order', async () => {
      const a = await seedPet('available');
      const b = await seedPet('sold');
      const c = await seedPet('pending');
      expect(await list({ after: a - 1, limit: 2 })).toEqual({
        items: [
          { petId: a, quantity: 0, status: 'available' },
          { petId: b, quantity: 0, status: 'sold' },
        ],
        hasMore: true,
      });
      expect(await list({ after: b, limit: 2 })).toEqual({ items: [{ petId: c, quantity: 0, status: 'pending' }], hasMore: false });
      expect(await list({ after: a - 1, status: ['sold', 'pending'] })).toEqual({
        items: [
          { petId: b, quantity: 0, status: 'sold' },
          { petId: c, quantity: 0, status: 'pending' },
        ],
        hasMore: false,
      });
    });
  });

  describe("the catalog's pet events", () => {
    it("mirrors a client's status, ignores the echo of an older recompute and follows the echo of the latest", async () => {
      const petId = await seedPet('available', 3);
      const latest = await probe.waitForEvent(PetStatusRecomputed, (event) => event.payload.petId === petId);
      const pet = (status: PetStatus) => ({ id: petId, name: `Pet ${petId}`, categoryId: 1, status });

      const byClient = PetUpdated.create({ pet: pet('sold'), previousStatus: 'available' }, { producer: 'catalog' });
      await publisher.publish(byClient);
      await handled(byClient);
      expect(await item(petId)).toEqual({ petId, quantity: 3, status: 'sold' });

      const staleEcho = PetUpdated.create(
        { pet: pet('pending'), previousStatus: 'sold' },
        { producer: 'catalog', causationId: randomUUID() },
      );
      await publisher.publish(staleEcho);
      await handled(staleEcho);
      expect(await item(petId)).toEqual({ petId, quantity: 3, status: 'sold' });

      const latestEcho = PetUpdated.create(
        { pet: pet('available'), previousStatus: 'sold' },
        { producer: 'catalog', causationId: latest.eventId },
      );
      await publisher.publish(latestEcho);
      await handled(latestEcho);
      expect(await item(petId)).toEqual({ petId, quantity: 3, status: 'available' });
    });

    it("keeps the status a later stock change recomputed over a client's older one, and tells the catalog again", async () => {
      const petId = await seedPet('available', 3);
      const latest = await probe.waitForEvent(PetStatusRecomputed, (event) => event.payload.petId === petId);
      // Set by a client before the stock was set, arriving after it.
      const older = PetUpdated.create(
        { pet: { id: petId, name: `Pet ${petId}`, categoryId: 1, status: 'sold' }, previousStatus: 'available' },
        { producer: 'catalog', occurredAt: new Date(Date.now() - 60_000) },
      );
      await publisher.publish(older);
      const answer = await probe.waitForEvent(PetStatusRecomputed, (event) => event.causationId === older.eventId);
      expect(answer.payload).toEqual({ petId, status: 'available', quantity: 3 });
      expect(answer.eventId).not.toBe(latest.eventId);
      expect(await item(petId)).toEqual({ petId, quantity: 3, status: 'available' });
    });

    it('removes a deleted pet for good: a late PetCreated does not bring it back, orders for it are unknown', async () => {
      const a = await seedPet('available', 2);
      const b = await seedPet('available');
      const deleted = PetDeleted.create({ petId: a }, { producer: 'catalog' });
      await publisher.publish(deleted);
      await handled(deleted);
      expect(await inventory.refusal(InventoryPatterns.getInventoryItem, { petId: String(a) })).toMatchObject({
        status: 404,
        code: 'INVENTORY_ITEM_NOT_FOUND',
      });
      expect((await list({ after: a - 1 })).items.map((entry) => entry.petId)).toEqual([b]);

      const late = PetCreated.create({ pet: { id: a, name: 'Again', categoryId: 1, status: 'available' } }, { producer: 'catalog' });
      await publisher.publish(late);
      await handled(late);
      expect(await inventory.refusal(InventoryPatterns.setStock, { petId: String(a), quantity: 1 })).toMatchObject({ status: 404 });

      const orderId = nextOrderId++;
      await publisher.publish(OrderPlaced.create({ orderId, petId: a, quantity: 1 }, { producer: 'orders' }));
      const decision = await decisionOf(orderId);
      // Version 2 of the rejection names the units the order asked for, as StockReserved does.
      expect(decision).toMatchObject({ type: 'StockReservationRejected', schemaVersion: 2 });
      expect(decision.payload).toEqual({ orderId, petId: a, quantity: 1, reason: 'UNKNOWN_PET' });
    });
  });

  describe('reservations', () => {
    it('approves exactly as many of 50 orders as there are units, then refuses the pet as not available', async () => {
      const petId = await seedPet('available', 10);
      const orderIds: number[] = [];
      for (let i = 0; i < 50; i++) orderIds.push(await order(petId, 1));
      await allDecided(orderIds);

      expect(decisionCounts(orderIds).every((count) => count === 1)).toBe(true);
      const decisions = decisionsFor(orderIds);
      expect(decisions.filter((event) => StockReserved.is(event))).toHaveLength(10);
      const rejected = decisions.filter((event) => StockReservationRejected.is(event));
      // Sold out, the pet is pending: that is the first reason that applies to the other 40.
      expect(rejected.filter((event) => (event.payload as { reason: string }).reason === 'PET_NOT_AVAILABLE')).toHaveLength(40);
      expect(await item(petId)).toEqual({ petId, quantity: 0, status: 'pending' });
    });

    it('has the effect of one when the same order event arrives again', async () => {
      const petId = await seedPet('available', 5);
      const orderId = nextOrderId++;
      const placed = OrderPlaced.create({ orderId, petId, quantity: 2 }, { producer: 'orders' });
      // The same message twice (a redelivery), then the same order under a new event id.
      const again = OrderPlaced.create({ orderId, petId, quantity: 2 }, { producer: 'orders' });
      const next = OrderPlaced.create({ orderId: nextOrderId++, petId, quantity: 1 }, { producer: 'orders' });
      await publisher.publish(placed, placed, again, next);
      // Same key, same partition: once the next order is decided, the ones before it were handled.
      await decisionOf(next.payload.orderId);
      await handled(again);

      expect(decisionCounts([orderId])).toEqual([1]);
      expect((await decisionOf(orderId)).type).toBe('StockReserved');
      expect(await item(petId)).toEqual({ petId, quantity: 2, status: 'available' });
    });

    it('takes nothing for an order whose cancellation arrived first', async () => {
      const petId = await seedPet('available', 3);
      const orderId = nextOrderId++;
      const next = OrderPlaced.create({ orderId: nextOrderId++, petId, quantity: 1 }, { producer: 'orders' });
      await publisher.publish(
        OrderCancelled.create({ orderId, petId, quantity: 2, previousStatus: 'placed' }, { producer: 'orders' }),
        OrderPlaced.create({ orderId, petId, quantity: 2 }, { producer: 'orders' }),
        next,
      );
      await decisionOf(next.payload.orderId);
      expect(decisionsFor([orderId])).toEqual([]);
      expect(await item(petId)).toEqual({ petId, quantity: 2, status: 'available' });
    });

    it('publishes a recomputed status only when the catalog does not have it yet', async () => {
      const petId = await seedPet('available', 2);
      const recomputesOf = () =>
        probe.all().filter((event) => PetStatusRecomputed.is(event) && event.payload.petId === petId);
      await eventually(() => expect(recomputesOf()).toHaveLength(1)); // the stock set through the API
      const first = await order(petId, 1);
      await decisionOf(first);
      const last = await order(petId, 1);
      await decisionOf(last);
      // Still available after the first order: nothing to tell the catalog; sold out after the last: pending.
      await eventually(() =>
        expect(recomputesOf().map((event) => event.payload)).toEqual([
          { petId, status: 'available', quantity: 2 },
          { petId, status: 'pending', quantity: 0 },
        ]),
      );
    });

    it("keeps an order for a pet it has not heard of while the catalog is down, and decides it once the pet's entry exists", async () => {
      const petId = nextPetId++;
      const [early, later] = [await order(petId, 1), await order(petId, 1)];
      await eventually(async () =>
        expect(await inventory.sql('select order_id from parked_order where pet_id = ? order by seq', [petId])).toEqual([
          { order_id: String(early) },
          { order_id: String(later) },
        ]),
      );
      expect(decisionsFor([early, later])).toEqual([]);

      await publisher.publish(
        PetCreated.create({ pet: { id: petId, name: 'Late', categoryId: 1, status: 'available' } }, { producer: 'catalog' }),
      );
      await allDecided([early, later]);
      // A new entry has no stock yet; the orders were decided in the order they came, and nothing waits any more.
      const reasons = decisionsFor([early, later]).map((event) => {
        const { orderId, reason } = event.payload as { orderId: number; reason?: string };
        return [orderId, reason];
      });
      expect(reasons).toEqual([
        [early, 'INSUFFICIENT_STOCK'],
        [later, 'INSUFFICIENT_STOCK'],
      ]);
      expect(await inventory.sql('select 1 from parked_order where pet_id = ?', [petId])).toEqual([]);
    });

    it('decides each order once while a second replica joins the consumer group and after', async () => {
      const stock = 1000;
      const pets = await Promise.all(Array.from({ length: 6 }, () => seedPet('available', stock)));
      const round = async (ids: number[]) => {
        for (const petId of pets) ids.push(await order(petId, 1));
      };
      let joined = false;
      const starting = startServiceForTest(inventoryRecipe, {
        namespace,
        databaseUrl,
        resetDatabase: false,
        waitForConsumer: false,
        env: { CATALOG_RPC: catalogRpc },
      });
      const joining = starting.then(async (service) => {
        await service.app.get(MessagingService).whenConsumerJoined();
        joined = true;
        return service;
      });
      // Orders keep arriving until the rebalance is over, so some are in flight while partitions move.
      const orderIds: number[] = [];
      while (!joined && orderIds.length < 600) await round(orderIds);
      const second = await joining;
      try {
        expect(await groupMembers(second.app.get(MessagingService).consumerGroup)).toBe(2);
        for (let i = 0; i < 3; i++) await round(orderIds);

        await allDecided(orderIds);
        expect(decisionCounts(orderIds).every((count) => count === 1)).toBe(true);
        expect(decisionsFor(orderIds).every((event) => StockReserved.is(event))).toBe(true);
        const perPet = orderIds.length / pets.length;
        for (const petId of pets) expect(await item(petId)).toEqual({ petId, quantity: stock - perPet, status: 'available' });
        // Both replicas answer RPC from the same state.
        expect(await second.send(InventoryPatterns.getInventoryItem, { petId: String(pets[0]) })).toEqual(await item(pets[0]));
      } finally {
        await second.close();
      }
    });
  });
});
