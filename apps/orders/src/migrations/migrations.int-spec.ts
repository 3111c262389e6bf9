import { entitySchemaDrift } from '@petstore/database';
import { testDatabaseUrl } from '@petstore/testing';
import { ordersDatabaseOptions } from '../mikro-orm.config';

describe('orders migrations', () => {
  it('create exactly the schema the entities describe', async () => {
    // A database of its own: the saga suite resets the orders test database while it runs.
    const url = testDatabaseUrl('orders').replace(/_test$/, '_schema_test');
    expect(await entitySchemaDrift(ordersDatabaseOptions(url))).toEqual([]);
  });
});
