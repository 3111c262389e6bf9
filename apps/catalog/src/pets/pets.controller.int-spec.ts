import { CatalogPatterns, Topics, type Category, type Page, type Pet, type PetWithCategory } from '@petstore/contracts';
import { randomUUID } from 'node:crypto';
import { EventProbe, uniqueNamespace } from '@petstore/testing';
import { startCatalog, type CatalogTestApp } from '../testing/catalog-test-app';

describe('catalog pets over RPC', () => {
  let catalog: CatalogTestApp;
  let petEvents: EventProbe;
  let dogs: Category;
  let cats: Category;

  beforeAll(async () => {
    const namespace = uniqueNamespace();
    catalog = await startCatalog(namespace);
    petEvents = await EventProbe.start({ namespace, topics: [Topics.catalogPet] });
    dogs = await catalog.send<Category>(CatalogPatterns.createCategory, { category: { name: 'Dogs' } });
    cats = await catalog.send<Category>(CatalogPatterns.createCategory, { category: { name: 'Cats' } });
  });

  afterAll(async () => {
    await petEvents?.stop();
    await catalog?.close();
  });

  const createPet = (pet: object) => catalog.send<Pet>(CatalogPatterns.createPet, { pet });
  const rows = () => catalog.count('select count(*) from pet');
  // Every row the outbox is given takes a number (published rows are deleted, so counting rows would not do).
  const outboxRows = () =>
    catalog.count('select case when is_called then last_value else 0 end as count from outbox_event_seq_seq');

  describe('create', () => {
    it('stores the pet, defaults its status and publishes PetCreated correlated with the request', async () => {
      const requestId = randomUUID();
      const pet = await catalog.send<Pet>(CatalogPatterns.createPet, {
        requestId,
        pet: { name: 'Rex', categoryId: dogs.id },
      });

      expect(pet).toEqual({ id: expect.any(Number), name: 'Rex', categoryId: dogs.id, status: 'available' });
      expect(await catalog.send(CatalogPatterns.getPet, { id: String(pet.id) })).toEqual(pet);
      const event = await petEvents.waitFor((e) => e.type === 'PetCreated' && e.key === String(pet.id));
      expect(event).toMatchObject({
        producer: 'catalog',
        correlationId: requestId,
        causationId: null,
        payload: { pet },
      });
    });

    it('keeps a given status', async () => {
      const pet = await createPet({ name: 'Tom', categoryId: cats.id, status: 'pending' });
      expect(pet.status).toBe('pending');
    });

    it('refuses an unknown category with 422 UNKNOWN_CATEGORY and writes nothing', async () => {
      const [petsBefore, outboxBefore] = [await rows(), await outboxRows()];

      for (const categoryId of [999_999, 2 ** 53 + 2]) {
        const error = await catalog.refusal(CatalogPatterns.createPet, { pet: { name: 'Ghost', categoryId } });
        expect(error).toMatchObject({ status: 422, code: 'UNKNOWN_CATEGORY' });
      }

      expect(await rows()).toBe(petsBefore);
      expect(await outboxRows()).toBe(outboxBefore);
    });
  });

  describe('get and details', () => {
    it('answers the pet with its category', async () => {
      const pet = await createPet({ name: 'Fido', categoryId: dogs.id });
      const details = await catalog.send<PetWithCategory>(CatalogPatterns.getPetDetails, { id: String(pet.id) });
      expect(details).toEqual({ ...pet, category: { id: dogs.id, name: 'Dogs' } });
    });

    it('answers reads sent together each with its own pet, and 404 for the one that is not there', async () => {
      const pets = [await createPet({ name: 'Ace', categoryId: dogs.id }), await createPet({ name: 'Tom', categoryId: cats.id, status: 'sold' })];
      const ids = [pets[1].id, pets[0].id, pets[1].id];

      const [answers, missing, firstPage, samePage] = await Promise.all([
        Promise.all(ids.map((id) => catalog.send<Pet>(CatalogPatterns.getPet, { id: String(id) }))),
        catalog.refusal(CatalogPatterns.getPet, { id: '987654' }),
        catalog.send<Page<Pet>>(CatalogPatterns.listPets, { limit: 1, after: pets[0].id - 1 }),
        catalog.send<Page<Pet>>(CatalogPatterns.listPets, { limit: 1, after: pets[0].id - 1 }),
      ]);

      expect(answers).toEqual([pets[1], pets[0], pets[1]]);
      expect(missing).toEqual({ status: 404, code: 'PET_NOT_FOUND', message: 'Pet 987654 does not exist' });
      expect(firstPage).toEqual({ items: [pets[0]], hasMore: true });
      expect(samePage).toEqual(firstPage);
    });

    it.each([
      ['an unknown id', '987654'],
      ['an id just beyond 2^53', '9007199254740993'],
      ['the largest int64', '9223372036854775807'],
    ])('answers 404 PET_NOT_FOUND for %s', async (_, id) => {
      for (const pattern of [CatalogPatterns.getPet, CatalogPatterns.getPetDetails]) {
        expect(await catalog.refusal(pattern, { id })).toEqual({
          status: 404,
          code: 'PET_NOT_FOUND',
          message: `Pet ${id} does not exist`,
        });
      }
    });
  });

  describe('list', () => {
    let fish: Category;
    let created: Pet[];

    beforeAll(async () => {
      fish = await catalog.send<Category>(CatalogPatterns.createCategory, { category: { name: 'Fish' } });
      created = [];
      for (const [name, status] of [
        ['Nemo', 'available'],
        ['Dory', 'sold'],
        ['NEMO junior', 'pending'],
        ['100% Goldfish', 'available'],
        ['Gold_fish', 'sold'],
        ['Bubbles', 'available'],
      ] as const) {
        created.push(await createPet({ name, categoryId: fish.id, status }));
      }
    });

    const list = (query: object) =>
      catalog.send<Page<Pet>>(CatalogPatterns.listPets, { limit: 20, after: 0, categoryId: fish.id, ...query });
    const names = (page: Page<Pet>) => page.items.map((pet) => pet.name);

    it('filters by category, in id order', async () => {
      const page = await list({});
      expect(page).toEqual({ items: created, hasMore: false });
    });

    it('filters by any of several statuses', async () => {
      expect(names(await list({ status: ['sold'] }))).toEqual(['Dory', 'Gold_fish']);
      expect(names(await list({ status: ['sold', 'pending'] }))).toEqual(['Dory', 'NEMO junior', 'Gold_fish']);
    });

    it('filters by a case-insensitive substring of the name, wildcards taken literally', async () => {
      expect(names(await list({ name: 'nemo' }))).toEqual(['Nemo', 'NEMO junior']);
      expect(names(await list({ name: '0%' }))).toEqual(['100% Goldfish']);
      expect(names(await list({ name: 'd_f' }))).toEqual(['Gold_fish']);
      expect(names(await list({ name: '%' }))).toEqual(['100% Goldfish']);
      expect(names(await list({ name: '_' }))).toEqual(['Gold_fish']);
      expect(names(await list({ name: 'nemo', status: ['pending'] }))).toEqual(['NEMO junior']);
    });

    it('pages by id: limit, after and hasMore', async () => {
      const first = await list({ limit: 4 });
      expect(first).toEqual({ items: created.slice(0, 4), hasMore: true });
      const second = await list({ limit: 4, after: first.items[3].id });
      expect(second).toEqual({ items: created.slice(4), hasMore: false });
      expect(await list({ limit: 2, after: created[3].id })).toEqual({ items: created.slice(4), hasMore: false });
      expect(await list({ after: created[5].id })).toEqual({ items: [], hasMore: false });
    });

    it('lists every category without a category filter', async () => {
      const page = await catalog.send<Page<Pet>>(CatalogPatterns.listPets, { limit: 100, after: 0 });
      expect(page.items.length).toBe(await rows());
      const ids = page.items.map((pet) => pet.id);
      expect(ids).toEqual([...ids].sort((a, b) => a - b));
    });

    it('finds nothing for a category that does not exist', async () => {
      expect(await list({ categoryId: 424242 })).toEqual({ items: [], hasMore: false });
    });
  });

  describe('replace', () => {
    it('replaces every field, defaults an omitted status and publishes PetUpdated', async () => {
      const pet = await createPet({ name: 'Max', categoryId: dogs.id, status: 'sold' });
      const requestId = randomUUID();

      const replaced = await catalog.send<Pet>(CatalogPatterns.replacePet, {
        requestId,
        id: String(pet.id),
        pet: { name: 'Maxine', categoryId: cats.id },
      });

      expect(replaced).toEqual({ id: pet.id, name: 'Maxine', categoryId: cats.id, status: 'available' });
      expect(await catalog.send(CatalogPatterns.getPet, { id: String(pet.id) })).toEqual(replaced);
      const event = await petEvents.waitFor((e) => e.type === 'PetUpdated' && e.correlationId === requestId);
      expect(event.payload).toEqual({ pet: replaced, previousStatus: 'sold' });
    });

    it('refuses an unknown pet with 404 and an unknown category with 422, changing nothing', async () => {
      const pet = await createPet({ name: 'Buddy', categoryId: dogs.id });
      const outboxBefore = await outboxRows();

      expect(
        await catalog.refusal(CatalogPatterns.replacePet, { id: '888888', pet: { name: 'X', categoryId: dogs.id } }),
      ).toMatchObject({ status: 404, code: 'PET_NOT_FOUND' });
      expect(
        await catalog.refusal(CatalogPatterns.replacePet, {
          id: String(pet.id),
          pet: { name: 'Buddy II', categoryId: 777777, status: 'sold' },
        }),
      ).toMatchObject({ status: 422, code: 'UNKNOWN_CATEGORY' });

      expect(await catalog.send(CatalogPatterns.getPet, { id: String(pet.id) })).toEqual(pet);
      expect(await outboxRows()).toBe(outboxBefore);
    });
  });

  describe('patch', () => {
    it('changes only the given fields', async () => {
      const pet = await createPet({ name: 'Bella', categoryId: dogs.id, status: 'pending' });

      const renamed = await catalog.send<Pet>(CatalogPatterns.patchPet, {
        id: String(pet.id),
        changes: { name: 'Bella the Great' },
      });
      expect(renamed).toEqual({ ...pet, name: 'Bella the Great' });

      const requestId = randomUUID();
      const sold = await catalog.send<Pet>(CatalogPatterns.patchPet, {
        requestId,
        id: String(pet.id),
        changes: { status: 'sold', categoryId: cats.id },
      });
      expect(sold).toEqual({ id: pet.id, name: 'Bella the Great', categoryId: cats.id, status: 'sold' });
      const event = await petEvents.waitFor((e) => e.type === 'PetUpdated' && e.correlationId === requestId);
      expect(event.payload).toEqual({ pet: sold, previousStatus: 'pending' });
    });

    it('publishes nothing when nothing changes', async () => {
      const pet = await createPet({ name: 'Luna', categoryId: cats.id });
      const outboxBefore = await outboxRows();

      expect(
        await catalog.send(CatalogPatterns.patchPet, {
          id: String(pet.id),
          changes: { name: 'Luna', status: 'available' },
        }),
      ).toEqual(pet);
      expect(await outboxRows()).toBe(outboxBefore);
    });

    it('refuses an unknown pet and an unknown category', async () => {
      const pet = await createPet({ name: 'Milo', categoryId: cats.id });
      expect(
        await catalog.refusal(CatalogPatterns.patchPet, { id: '9007199254740993', changes: { name: 'X' } }),
      ).toMatchObject({ status: 404, code: 'PET_NOT_FOUND' });
      expect(
        await catalog.refusal(CatalogPatterns.patchPet, { id: String(pet.id), changes: { categoryId: 555555 } }),
      ).toMatchObject({ status: 422, code: 'UNKNOWN_CATEGORY' });
      expect(await catalog.send(CatalogPatterns.getPet, { id: String(pet.id) })).toEqual(pet);
    });
  });

  describe('delete', () => {
    it('removes the pet and publishes PetDeleted', async () => {
      const pet = await createPet({ name: 'Charlie', categoryId: dogs.id });
      const requestId = randomUUID();

      expect(await catalog.send(CatalogPatterns.deletePet, { requestId, id: String(pet.id) })).toBeNull();

      expect(await catalog.refusal(CatalogPatterns.getPet, { id: String(pet.id) })).toMatchObject({ status: 404 });
      const event = await petEvents.waitFor((e) => e.type === 'PetDeleted' && e.correlationId === requestId);
      expect(event).toMatchObject({ key: String(pet.id), payload: { petId: pet.id } });
    });

    it('answers 404 for a pet that is not there, writing nothing', async () => {
      const outboxBefore = await outboxRows();
      for (const id of ['31337', '9223372036854775807']) {
        expect(await catalog.refusal(CatalogPatterns.deletePet, { id })).toMatchObject({
          status: 404,
          code: 'PET_NOT_FOUND',
        });
      }
      expect(await outboxRows()).toBe(outboxBefore);
    });
  });

  it('publishes every change of one pet in order, keyed by its id', async () => {
    const pet = await createPet({ name: 'Oscar', categoryId: cats.id });
    const id = String(pet.id);
    await catalog.send(CatalogPatterns.patchPet, { id, changes: { status: 'pending' } });
    await catalog.send(CatalogPatterns.replacePet, { id, pet: { name: 'Oscar', categoryId: cats.id, status: 'sold' } });
    await catalog.send(CatalogPatterns.deletePet, { id });

    await petEvents.waitFor((e) => e.type === 'PetDeleted' && e.key === id);
    const mine = petEvents.all().filter((e) => e.key === id);
    expect(mine.map((e) => [e.type, (e.payload as { previousStatus?: string }).previousStatus])).toEqual([
      ['PetCreated', undefined],
      ['PetUpdated', 'available'],
      ['PetUpdated', 'pending'],
      ['PetDeleted', undefined],
    ]);
  });
});
