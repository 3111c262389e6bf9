import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import {
  asyncApiDocument,
  DEFAULT_TOPIC_PARTITIONS,
  deadLetterTopic,
  EVENT_SERVICES,
  OrderPlaced,
  OrdersPatterns,
  PetCreated,
  StockReservationRejected,
  StockReserved,
  Topics,
  type AsyncApiMessage,
  type EventEnvelope,
  type Order,
  type PlaceOrderResult,
} from '@petstore/contracts';
import { handledEvents, MESSAGING_OPTIONS, type MessagingOptions } from '@petstore/messaging';
import {
  eventually,
  EventProbe,
  EventPublisher,
  servedEventsDocument,
  startServiceForTest,
  testDatabaseUrl,
  uniqueNamespace,
  type ProbedMessage,
  type RunningService,
} from '@petstore/testing';
import type { OrdersConfig } from './config';
import { ordersRecipe } from './testing/orders-recipe';

jest.setTimeout(60_000);

/**
 * Orders against the published events document: what it serves at GET /asyncapi.json, what it
 * puts on the wire, and that its real consumer, on the real broker and database, takes the
 * previous schema version of an event it handles as well as the current one (a producer one
 * version behind during a rolling deploy). Inventory is played by its events.
 */
describe('orders and the events contract', () => {
  const namespace = uniqueNamespace('orders-contract');
  const document = asyncApiDocument({ partitions: DEFAULT_TOPIC_PARTITIONS });
  const ajv = addFormats(new Ajv({ allErrors: true, strict: false }));
  let probe: EventProbe;
  let publisher: EventPublisher;
  let orders: RunningService<OrdersConfig>;
  let nextPetId = 3_000_001;

  beforeAll(async () => {
    probe = await EventProbe.start({ namespace, topics: [Topics.ordersOrder, deadLetterTopic('orders')] });
    publisher = await EventPublisher.start(namespace);
    orders = await startServiceForTest(ordersRecipe, { namespace, databaseUrl: testDatabaseUrl('orders_contract') });
  });

  afterAll(async () => {
    await Promise.allSettled([orders?.close(), probe?.stop(), publisher?.stop()]);
  });

  async function knownPet(): Promise<number> {
    const id = nextPetId++;
    await publisher.publish(PetCreated.create({ pet: { id, name: `Pet ${id}`, categoryId: 1, status: 'available' } }, { producer: 'catalog' }));
    await eventually(async () => expect(await orders.sql('select 1 from known_pet where pet_id = ?', [id])).toHaveLength(1));
    return id;
  }

  async function placed(petId: number, quantity: number): Promise<Order> {
    const { order } = await orders.send<PlaceOrderResult>(OrdersPatterns.placeOrder, { order: { petId, quantity } });
    return order;
  }

  const orderBecomes = (id: number, status: Order['status']) =>
    eventually(async () => {
      const order = await orders.send<Order>(OrdersPatterns.getOrder, { id: String(id) });
      expect(order.status).toBe(status);
      return order;
    });

  /** The message's headers and value checked against the document's schemas for it: the errors, none when it matches. */
  function mismatches(message: ProbedMessage, documented: AsyncApiMessage): string[] {
    const problems: string[] = [];
    for (const [what, schema, value] of [
      ['headers', documented.headers, message.headers],
      ['value', documented.payload, JSON.parse(message.value ?? 'null')],
      ['key', documented.bindings.kafka.key, message.key],
    ] as const) {
      if (!ajv.validate(schema, value)) problems.push(`${what}: ${ajv.errorsText()}`);
    }
    const named = Object.keys((documented.headers as { properties: object }).properties);
    const unnamed = Object.keys(message.headers).filter((header) => !named.includes(header));
    if (unnamed.length > 0) problems.push(`headers the document does not name: ${unnamed.join(', ')}`);
    return problems;
  }

  it('serves its part of the events document on its HTTP port, with the events its handlers consume', async () => {
    const { status, served, contract } = await servedEventsDocument(orders, 'orders');

    expect(status).toBe(200);
    expect(served).toEqual(contract);

    const handlers = orders.app.get<MessagingOptions>(MESSAGING_OPTIONS).handlers ?? [];
    const handled = handlers.flatMap((handler) => handledEvents(handler) ?? []).map((definition) => definition.type);
    const received = Object.values(served.operations)
      .filter((operation) => operation.action === 'receive')
      .flatMap((operation) => operation.messages.map((message) => message.$ref.split('/').pop()));
    expect(handled.sort()).toEqual(EVENT_SERVICES.orders.consumes.map((definition) => definition.type).sort());
    expect(received).toEqual(expect.arrayContaining(handled));
  });

  it('publishes OrderPlaced as the document describes it: headers, key and value', async () => {
    const order = await placed(await knownPet(), 1);

    const message = await probe.waitForMessage(
      (candidate) =>
        candidate.envelope !== undefined &&
        OrderPlaced.is(candidate.envelope) &&
        candidate.envelope.payload.orderId === order.id,
    );
    expect(mismatches(message, document.components.messages['OrderPlaced'])).toEqual([]);
    expect(message.headers).toMatchObject({ 'event-type': 'OrderPlaced', 'outbox-seq': expect.stringMatching(/^\d+$/) });
  });

  it('takes a StockReservationRejected of the previous schema version and of the current one', async () => {
    const petId = await knownPet();
    const [older, current] = [await placed(petId, 2), await placed(petId, 3)];

    const rejectedAtVersion1 = StockReservationRejected.create(
      { orderId: older.id, petId, reason: 'INSUFFICIENT_STOCK' },
      { producer: 'inventory' },
    );
    const version1: EventEnvelope = { ...rejectedAtVersion1, schemaVersion: 1 };
    const version2 = StockReservationRejected.create(
      { orderId: current.id, petId, reason: 'PET_NOT_AVAILABLE', quantity: 3 },
      { producer: 'inventory' },
    );
    // Both shapes are what the document says producers of each version write.
    expect(ajv.validate(document.components.messages['StockReservationRejectedV1'].payload, version1)).toBe(true);
    expect(ajv.validate(document.components.messages['StockReservationRejected'].payload, version2)).toBe(true);

    await publisher.publish(version1, version2);

    expect(await orderBecomes(older.id, 'rejected')).toMatchObject({ rejectionReason: 'INSUFFICIENT_STOCK' });
    expect(await orderBecomes(current.id, 'rejected')).toMatchObject({ rejectionReason: 'PET_NOT_AVAILABLE' });
  });

  it('dead-letters an event its schema rejects, with the headers the document names', async () => {
    const petId = await knownPet();
    const order = await placed(petId, 1);
    const broken = {
      ...StockReserved.create({ orderId: order.id, petId, quantity: 1, remaining: 0 }, { producer: 'inventory' }),
      payload: { orderId: order.id, petId, quantity: 0, remaining: 0 },
    };

    await publisher.publish(broken);

    const letter = await probe.waitForMessage(
      (candidate) => candidate.topic === deadLetterTopic('orders') && candidate.envelope?.eventId === broken.eventId,
      30_000,
    );
    expect(mismatches(letter, document.components.messages['DeadLetter'])).toEqual([]);
    expect(letter.headers).toMatchObject({
      'dead-letter-original-topic': `${namespace}${Topics.inventoryStock}`,
      'dead-letter-consumer-group': `${namespace}orders`,
      'dead-letter-error-name': 'NonRetriableError',
    });
    expect((await orders.send<Order>(OrdersPatterns.getOrder, { id: String(order.id) })).status).toBe('placed');
  });
});
