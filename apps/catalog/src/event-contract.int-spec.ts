import { asyncApiDocument, DEFAULT_TOPIC_PARTITIONS, EVENT_SERVICES, type AsyncApiDocument } from '@petstore/contracts';
import { handledEvents, MESSAGING_OPTIONS, type MessagingOptions } from '@petstore/messaging';
import { uniqueNamespace } from '@petstore/testing';
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
    const response = await fetch(`http://${catalog.config.host}:${catalog.config.httpPort}/asyncapi.json`);
    const served = (await response.json()) as AsyncApiDocument;

    expect(response.status).toBe(200);
    expect(served).toEqual(JSON.parse(JSON.stringify(asyncApiDocument({ partitions: DEFAULT_TOPIC_PARTITIONS, service: 'catalog' }))));
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
