import { MikroORM } from '@mikro-orm/postgresql';
import { prepareTestDatabase } from '@petstore/database';
import { catalogDatabaseOptions } from '../mikro-orm.config';
import { TEST_DATABASE_URL } from '../testing/catalog-test-app';

describe('catalog migrations', () => {
  it('create exactly the schema the entities describe', async () => {
    const options = catalogDatabaseOptions(TEST_DATABASE_URL);
    await prepareTestDatabase(options);
    const orm = await MikroORM.init(options);
    try {
      const diff = await orm.schema.getUpdateSchemaSQL({ wrap: false });
      const catalogTables = diff.split('\n').filter((line) => /"(pet|category)"|\b(pet|category)_/.test(line));
      expect(catalogTables).toEqual([]);
    } finally {
      await orm.close(true);
    }
  });
});
