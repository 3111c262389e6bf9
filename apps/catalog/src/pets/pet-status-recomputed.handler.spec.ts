import {
  CatalogPatterns,
  PetStatusRecomputed,
  PetUpdated,
  serializeEnvelope,
  Topics,
  type Category,
  type EventEnvelope,
  type Pet,
  type PetStatus,
} from '@petstore/contracts';
import { Kafka, logLevel, type Producer } from 'kafkajs';
import { randomUUID } from 'node:crypto';
import { EventProbe, testKafkaBrokers, uniqueNamespace } from '@petstore/testing';
import { startCatalog, type CatalogTestApp } from '../testing/catalog-test-app';

describe('PetStatusRecomputed from inventory', () => {
  let catalog: CatalogTestApp;
  let petEvents: EventProbe;
  let producer: Producer;
  let namespace: string;
  let category: Category;

  beforeAll(async () => {
    namespace = uniqueNamespace();
    catalog = await startCatalog(namespace);
    petEvents = await EventProbe.start({ namespace, topics: [Topics.catalogPet] });
    producer = new Kafka({ clientId: 'inventory-stand-in', brokers: testKafkaBrokers(), logLevel: logLevel.NOTHING }).producer();
    await producer.connect();
    category = await catalog.send<Category>(CatalogPatterns.createCategory, { category: { name: 'Parrots' } });
  });

  afterAll(async () => {
    await producer?.disconnect();
    await petEvents?.stop();
    await catalog?.close();
  });

  const recomputed = (petId: number, status: PetStatus) =>
    PetStatusRecomputed.create(
      { petId, status, quantity: status === 'available' ? 3 : 0 },
      { producer: 'inventory', correlationId: randomUUID() },
    );

  const publish = (...events: EventEnvelope[]) =>
    producer.send({
      topic: `${namespace}${Topics.inventoryStock}`,
      messages: events.map((event) => ({ key: event.key, value: serializeEnvelope(event) })),
    });

  const updatesOf = (petId: number) =>
    petEvents
      .all()
      .filter((e) => PetUpdated.is(e) && e.key === String(petId))
      .map((e) => e.payload);

  it('sets the pet to the recomputed status and publishes PetUpdated caused by the event', async () => {
    const pet = await catalog.send<Pet>(CatalogPatterns.createPet, { pet: { name: 'Polly', categoryId: category.id } });
    const event = recomputed(pet.id, 'sold');

    await publish(event);

    const update = await petEvents.waitFor((e) => e.type === 'PetUpdated' && e.causationId === event.eventId);
    expect(update).toMatchObject({
      producer: 'catalog',
      correlationId: event.correlationId,
      key: String(pet.id),
      payload: { pet: { ...pet, status: 'sold' }, previousStatus: 'available' },
    });
    expect(await catalog.send(CatalogPatterns.getPet, { id: String(pet.id) })).toEqual({ ...pet, status: 'sold' });
  });

  it('applies an event delivered twice once', async () => {
    const pet = await catalog.send<Pet>(CatalogPatterns.createPet, { pet: { name: 'Kiwi', categoryId: category.id } });
    const toSold = recomputed(pet.id, 'sold');
    const toAvailable = recomputed(pet.id, 'available');
    const toPending = recomputed(pet.id, 'pending');

    // Re-applying the first event after the second would move the pet back to sold.
    await publish(toSold, toAvailable, toSold, toPending);

    await petEvents.waitFor((e) => e.causationId === toPending.eventId);
    expect(updatesOf(pet.id)).toEqual([
      { pet: { ...pet, status: 'sold' }, previousStatus: 'available' },
      { pet: { ...pet, status: 'available' }, previousStatus: 'sold' },
      { pet: { ...pet, status: 'pending' }, previousStatus: 'available' },
    ]);
    expect(await catalog.send(CatalogPatterns.getPet, { id: String(pet.id) })).toEqual({ ...pet, status: 'pending' });
  });

  it('changes nothing when the status is already the recomputed one or the pet is gone', async () => {
    const pet = await catalog.send<Pet>(CatalogPatterns.createPet, { pet: { name: 'Rio', categoryId: category.id } });
    const gone = await catalog.send<Pet>(CatalogPatterns.createPet, { pet: { name: 'Blu', categoryId: category.id } });
    await catalog.send(CatalogPatterns.deletePet, { id: String(gone.id) });
    const outboxBefore = await catalog.count('select count(*) from outbox_event');

    const same = recomputed(pet.id, 'available');
    const forGone = recomputed(gone.id, 'sold');
    const marker = recomputed(pet.id, 'sold');
    await publish(same, forGone);
    await publish(marker);

    // The marker follows `same` on the pet's partition, so once it is applied `same` has been handled.
    await petEvents.waitFor((e) => e.causationId === marker.eventId);
    await waitUntil(async () => (await processed([same.eventId, forGone.eventId])) === 2);
    expect(updatesOf(pet.id)).toEqual([{ pet: { ...pet, status: 'sold' }, previousStatus: 'available' }]);
    expect(updatesOf(gone.id)).toEqual([]);
    expect(await catalog.count('select count(*) from pet where id = ?', [gone.id])).toBe(0);
    expect(await catalog.count('select count(*) from outbox_event')).toBe(outboxBefore + 1);
  });

  const processed = (eventIds: string[]) =>
    catalog.count('select count(*) from processed_event where event_id in (?, ?)', eventIds);
});

async function waitUntil(condition: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
