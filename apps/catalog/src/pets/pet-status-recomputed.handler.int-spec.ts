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
import { LogLevel, createKafkaClient } from '@petstore/kafka';
import type { Producer } from 'kafkajs';
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
    producer = createKafkaClient({ clientId: 'inventory-stand-in', brokers: testKafkaBrokers(), logLevel: LogLevel.NOTHING }).producer();
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
      topic: `${namespace}${Topics.inventoryPetStatus}`,
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

    // Re-applying the first event after the second would move the pet back to sold. Each is
    // awaited: statuses that come in one batch are coalesced to the pet's latest.
    await publish(toSold);
    await petEvents.waitFor((e) => e.causationId === toSold.eventId);
    await publish(toAvailable);
    await petEvents.waitFor((e) => e.causationId === toAvailable.eventId);
    await publish(toSold, toPending);

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
    const outboxBefore = await outboxWrites();

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
    expect(await outboxWrites()).toBe(outboxBefore + 1);
  });

  it('applies only the latest of the statuses a batch brings for a pet', async () => {
    const pet = await catalog.send<Pet>(CatalogPatterns.createPet, { pet: { name: 'Mango', categoryId: category.id } });
    const events = [recomputed(pet.id, 'sold'), recomputed(pet.id, 'pending'), recomputed(pet.id, 'sold')];
    await publish(...events);

    await waitUntil(
      async () =>
        (await catalog.count(
          'select count(*) from processed_event where event_id in (?, ?, ?)',
          events.map((e) => e.eventId),
        )) === 3,
    );
    expect(await catalog.send(CatalogPatterns.getPet, { id: String(pet.id) })).toEqual({ ...pet, status: 'sold' });
    await petEvents.waitFor((e) => PetUpdated.is(e) && e.key === String(pet.id) && e.payload.pet.status === 'sold');
    // However the fetches split them, the updates chain from the pet's status to the last one.
    const updates = updatesOf(pet.id) as { pet: Pet; previousStatus: PetStatus }[];
    expect(updates.length).toBeGreaterThanOrEqual(1);
    expect(updates.length).toBeLessThanOrEqual(3);
    expect(updates[0].previousStatus).toBe('available');
    expect(updates[updates.length - 1].pet.status).toBe('sold');
  });

  // Every row the outbox is given takes a number (published rows are deleted, so counting rows would not do).
  const outboxWrites = () =>
    catalog.count('select case when is_called then last_value else 0 end as count from outbox_event_seq_seq');

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
