import { entitySchemaDrift } from '@petstore/database';
import { testDatabaseUrl } from '@petstore/testing';
import { inventoryDatabaseOptions } from '../mikro-orm.config';

describe('inventory migrations', () => {
  it('create exactly the schema the entities describe', async () => {
    // A database of its own: the saga suite resets the inventory test database while it runs.
    const url = testDatabaseUrl('inventory').replace(/_test$/, '_schema_test');
    expect(await entitySchemaDrift(inventoryDatabaseOptions(url))).toEqual([]);
  });
});
