import { EVENT_SERVICES } from '@petstore/contracts';
import { handledEvents, MESSAGING_OPTIONS, type MessagingOptions } from '@petstore/messaging';
import { servedEventsDocument, uniqueNamespace } from '@petstore/testing';
import { startCatalog, type CatalogTestApp } from './testing/catalog-test-app';

describe('catalog and the events document', () => {
  let catalog: CatalogTestApp;

  beforeAll(async () => {
    catalog = await startCatalog(uniqueNamespace('catalog-contract'));
  });

  afterAll(async () => {
    await catalog?.close();
  });

  it('serves its part on its HTTP port, listing the events its handlers consume', async () => {
    const { status, served, contract } = await servedEventsDocument(catalog, 'catalog');

    expect(status).toBe(200);
    expect(served).toEqual(contract);
    const handlers = catalog.app.get<MessagingOptions>(MESSAGING_OPTIONS).handlers ?? [];
    const handled = handlers.flatMap((handler) => handledEvents(handler) ?? []).map((definition) => definition.type);
    expect(handled.sort()).toEqual(EVENT_SERVICES.catalog.consumes.map((definition) => definition.type).sort());
    expect(Object.keys(served.operations)).toEqual([
      'catalogPublishesCatalogPet',
      'catalogConsumesInventoryPetStatus',
      'catalogSendsDeadLetters',
    ]);
  });
});
