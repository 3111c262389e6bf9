import { CatalogPatterns, type Category, type Page, type Pet, type RpcErrorBody } from '@petstore/contracts';
import { uniqueNamespace } from '@petstore/testing';
import { startCatalog, type CatalogTestApp } from '../testing/catalog-test-app';

describe('catalog categories over RPC', () => {
  let catalog: CatalogTestApp;

  beforeAll(async () => {
    catalog = await startCatalog(uniqueNamespace());
  });

  afterAll(async () => {
    await catalog?.close();
  });

  const create = (category: object) => catalog.send<Category>(CatalogPatterns.createCategory, { category });
  const rows = () => catalog.count('select count(*) from category');

  it('creates, reads and lists a category', async () => {
    const birds = await create({ name: 'Birds', description: 'Feathered friends' });
    expect(birds).toEqual({ id: expect.any(Number), name: 'Birds', description: 'Feathered friends' });
    expect(await catalog.send(CatalogPatterns.getCategory, { id: String(birds.id) })).toEqual(birds);

    const reptiles = await create({ name: 'Reptiles' });
    expect(reptiles).toEqual({ id: expect.any(Number), name: 'Reptiles' });
    const page = await catalog.send<Page<Category>>(CatalogPatterns.listCategories, { limit: 100, after: 0 });
    expect(page.items).toEqual(expect.arrayContaining([birds, reptiles]));
  });

  it('answers reads sent together each with its own category, and 404 for the one that is not there', async () => {
    const made = [await create({ name: 'Together A' }), await create({ name: 'Together B', description: 'Second' })];

    const [answers, missing] = await Promise.all([
      Promise.all([made[1], made[0], made[1]].map(({ id }) => catalog.send<Category>(CatalogPatterns.getCategory, { id: String(id) }))),
      catalog.refusal(CatalogPatterns.getCategory, { id: '987654' }),
    ]);

    expect(answers).toEqual([made[1], made[0], made[1]]);
    expect(missing).toMatchObject({ status: 404, code: 'CATEGORY_NOT_FOUND' });
  });

  it('pages by id', async () => {
    const made: Category[] = [];
    for (const name of ['Page A', 'Page B', 'Page C']) made.push(await create({ name }));
    const after = made[0].id - 1;

    const first = await catalog.send<Page<Category>>(CatalogPatterns.listCategories, { limit: 2, after });
    expect(first).toEqual({ items: made.slice(0, 2), hasMore: true });
    const second = await catalog.send<Page<Category>>(CatalogPatterns.listCategories, { limit: 2, after: made[1].id });
    expect(second).toEqual({ items: made.slice(2), hasMore: false });
  });

  describe('unique names', () => {
    it('refuses a name taken in another case with 409 CATEGORY_NAME_TAKEN', async () => {
      await create({ name: 'Hamsters' });
      const before = await rows();

      const error = await catalog.refusal(CatalogPatterns.createCategory, { category: { name: 'hAMSTERS' } });

      expect(error).toEqual({
        status: 409,
        code: 'CATEGORY_NAME_TAKEN',
        message: 'A category named "hAMSTERS" already exists',
      });
      expect(await rows()).toBe(before);
    });

    it('lets exactly one of many concurrent creates of one name win', async () => {
      const names = ['Ferrets', 'FERRETS', 'ferrets', 'FeRrEtS', 'fErReTs', 'Ferrets', 'ferretS', 'FERRETs'];
      const before = await rows();

      const results = await Promise.allSettled(
        names.map((name) => catalog.send<Category>(CatalogPatterns.createCategory, { category: { name } })),
      );

      expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
      const refusals = results.flatMap((result) => (result.status === 'rejected' ? [result.reason as RpcErrorBody] : []));
      expect(refusals).toHaveLength(names.length - 1);
      for (const refusal of refusals) expect(refusal).toMatchObject({ status: 409, code: 'CATEGORY_NAME_TAKEN' });
      expect(await rows()).toBe(before + 1);
    });

    it('applies to replace as well, but a category may keep its own name in another case', async () => {
      await create({ name: 'Rabbits' });
      const mice = await create({ name: 'Mice', description: 'Small' });

      expect(
        await catalog.refusal(CatalogPatterns.replaceCategory, { id: String(mice.id), category: { name: 'RABBITS' } }),
      ).toMatchObject({ status: 409, code: 'CATEGORY_NAME_TAKEN' });
      expect(await catalog.send(CatalogPatterns.getCategory, { id: String(mice.id) })).toEqual(mice);

      // A full replace: the omitted description goes.
      const renamed = await catalog.send(CatalogPatterns.replaceCategory, {
        id: String(mice.id),
        category: { name: 'MICE' },
      });
      expect(renamed).toEqual({ id: mice.id, name: 'MICE' });
      expect(await catalog.send(CatalogPatterns.getCategory, { id: String(mice.id) })).toEqual(renamed);
    });
  });

  describe('delete', () => {
    it('removes an unused category', async () => {
      const empty = await create({ name: 'Empty' });
      expect(await catalog.send(CatalogPatterns.deleteCategory, { id: String(empty.id) })).toBeNull();
      expect(await catalog.refusal(CatalogPatterns.getCategory, { id: String(empty.id) })).toMatchObject({
        status: 404,
        code: 'CATEGORY_NOT_FOUND',
      });
    });

    it('refuses with 409 CATEGORY_IN_USE while a pet belongs to it', async () => {
      const horses = await create({ name: 'Horses' });
      const pet = await catalog.send<Pet>(CatalogPatterns.createPet, { pet: { name: 'Spirit', categoryId: horses.id } });

      expect(await catalog.refusal(CatalogPatterns.deleteCategory, { id: String(horses.id) })).toEqual({
        status: 409,
        code: 'CATEGORY_IN_USE',
        message: `Category ${horses.id} still has pets`,
      });
      expect(await catalog.send(CatalogPatterns.getCategory, { id: String(horses.id) })).toEqual(horses);

      await catalog.send(CatalogPatterns.deletePet, { id: String(pet.id) });
      expect(await catalog.send(CatalogPatterns.deleteCategory, { id: String(horses.id) })).toBeNull();
    });
  });

  it.each([
    ['an unknown id', '424242'],
    ['an id beyond 2^53', '9007199254740993'],
    ['the largest int64', '9223372036854775807'],
  ])('answers 404 CATEGORY_NOT_FOUND for %s', async (_, id) => {
    const expected = { status: 404, code: 'CATEGORY_NOT_FOUND', message: `Category ${id} does not exist` };
    expect(await catalog.refusal(CatalogPatterns.getCategory, { id })).toEqual(expected);
    expect(await catalog.refusal(CatalogPatterns.replaceCategory, { id, category: { name: 'Nope' } })).toEqual(expected);
    expect(await catalog.refusal(CatalogPatterns.deleteCategory, { id })).toEqual(expected);
  });
});
