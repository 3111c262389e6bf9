import { CatalogPatterns, type Category, type Page } from '@petstore/contracts';
import { uniqueNamespace } from '@petstore/testing';
import { startCatalog, type CatalogTestApp } from './testing/catalog-test-app';

describe('the database pool (DATABASE_POOL_MAX)', () => {
  let catalog: CatalogTestApp;

  beforeAll(async () => {
    catalog = await startCatalog(uniqueNamespace(), { DATABASE_POOL_MAX: '2' });
  });

  afterAll(async () => {
    await catalog?.close();
  });

  it('bounds the connections a replica opens, however many requests arrive at once', async () => {
    await catalog.send<Category>(CatalogPatterns.createCategory, { category: { name: 'Pool test' } });

    // With the default pool of 10, a burst like this opens ten connections.
    const pages = await Promise.all(Array.from({ length: 40 }, () => catalog.send<Page<Category>>(CatalogPatterns.listCategories, { limit: 10, after: 0 })));

    expect(pages.every((page) => page.items.some((category) => category.name === 'Pool test'))).toBe(true);
    // The pool's two, and the outbox relay's session of its own.
    const connections = await catalog.count('select count(*) from pg_stat_activity where datname = current_database()');
    expect(connections).toBeLessThanOrEqual(3);
  });
});
