import { EVENT_SERVICES } from '@petstore/contracts';
import { handledEvents, MESSAGING_OPTIONS, type MessagingOptions } from '@petstore/messaging';
import {
  servedEventsDocument,
  startServiceForTest,
  testDatabaseUrl,
  uniqueNamespace,
  type RunningService,
} from '@petstore/testing';
import type { InventoryConfig } from './config';
import { inventoryRecipe } from './testing/inventory-recipe';

jest.setTimeout(60_000);

describe('inventory and the events document', () => {
  let inventory: RunningService<InventoryConfig>;

  beforeAll(async () => {
    inventory = await startServiceForTest(inventoryRecipe, {
      namespace: uniqueNamespace('inventory-contract'),
      databaseUrl: testDatabaseUrl('inventory_contract'),
    });
  });

  afterAll(async () => {
    await inventory?.close();
  });

  it('serves its part on its HTTP port, listing the events its handlers consume', async () => {
    const { status, served, contract } = await servedEventsDocument(inventory, 'inventory');

    expect(status).toBe(200);
    expect(served).toEqual(contract);
    const handlers = inventory.app.get<MessagingOptions>(MESSAGING_OPTIONS).handlers ?? [];
    const handled = handlers.flatMap((handler) => handledEvents(handler) ?? []).map((definition) => definition.type);
    expect(handled.sort()).toEqual(EVENT_SERVICES.inventory.consumes.map((definition) => definition.type).sort());
    expect(Object.keys(served.operations)).toEqual([
      'inventoryConsumesCatalogPet',
      'inventoryConsumesOrdersOrder',
      'inventoryPublishesInventoryStock',
      'inventoryPublishesInventoryPetStatus',
      'inventorySendsDeadLetters',
    ]);
  });
});
