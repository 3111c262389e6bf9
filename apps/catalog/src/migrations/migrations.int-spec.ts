import { entitySchemaDrift } from '@petstore/database';
import { catalogDatabaseOptions } from '../mikro-orm.config';
import { TEST_DATABASE_URL } from '../testing/catalog-test-app';

describe('catalog migrations', () => {
  it('create exactly the schema the entities describe', async () => {
    const catalogTables = await entitySchemaDrift(catalogDatabaseOptions(TEST_DATABASE_URL));
    expect(catalogTables).toEqual([]);
  });
});
