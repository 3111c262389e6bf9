import { Parser } from '@asyncapi/parser';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import {
  CONSUMING_SERVICES,
  EVENT_DEFINITIONS,
  EVENT_SERVICES,
  allTopics,
  asyncApiDocument,
  contractHeaders,
  previousMessageId,
  type AsyncApiDocument,
} from '..';

const ERROR = 0;
const WARNING = 1;

async function problems(document: AsyncApiDocument): Promise<string[]> {
  const { diagnostics } = await new Parser().parse(JSON.parse(JSON.stringify(document)));
  return diagnostics
    .filter((diagnostic) => diagnostic.severity === ERROR || diagnostic.severity === WARNING)
    .map((diagnostic) => `${diagnostic.code} at ${diagnostic.path.join('.')}: ${diagnostic.message}`);
}

describe('the AsyncAPI document of the events', () => {
  const document = asyncApiDocument({ partitions: 12 });

  it('is a valid AsyncAPI 3.0 document: no errors, no warnings', async () => {
    expect(document.asyncapi).toBe('3.0.0');
    expect(await problems(document)).toEqual([]);
  });

  it.each(CONSUMING_SERVICES)("is valid in %s's part too", async (service) => {
    expect(await problems(asyncApiDocument({ partitions: 12, service }))).toEqual([]);
  });

  it('has every topic of the contract as a channel with its partitions', () => {
    const channels = Object.values(document.channels);
    expect(channels.map((channel) => channel.address).sort()).toEqual([...allTopics()].sort());
    for (const channel of channels) {
      expect(channel['bindings']).toMatchObject({
        kafka: { topic: channel.address, partitions: 12, bindingVersion: '0.5.0' },
      });
    }
    expect(document.channels['catalogPet']['bindings']).toMatchObject({
      kafka: { 'x-key': 'the pet id, in decimal', 'x-ordering': "one pet's events in the order their producer committed them" },
    });
    expect(asyncApiDocument({ partitions: 3 }).channels['catalogPet']['bindings']).toMatchObject({ kafka: { partitions: 3 } });
  });

  it('has every event type as a message on its topic, with its payload schema, key and version', () => {
    for (const definition of EVENT_DEFINITIONS) {
      const message = document.components.messages[definition.type];
      expect(message).toBeDefined();
      const payload = message.payload as { properties: Record<string, unknown> };
      expect(payload.properties['payload']).toBe(definition.payloadSchema);
      expect(payload.properties['schemaVersion']).toMatchObject({ const: definition.schemaVersion });
      expect(message.bindings.kafka.key).toMatchObject({ type: 'string' });
      const channel = Object.values(document.channels).find((one) => one.address === definition.topic);
      expect(channel?.messages[definition.type]).toEqual({ $ref: `#/components/messages/${definition.type}` });
    }
  });

  it('has a message for every previous version consumers still read', () => {
    const withPrevious = EVENT_DEFINITIONS.filter((definition) => definition.previous);
    expect(withPrevious.length).toBeGreaterThan(0);
    for (const definition of withPrevious) {
      const message = document.components.messages[previousMessageId(definition) as string];
      const payload = message.payload as { properties: Record<string, unknown> };
      expect(payload.properties['payload']).toBe(definition.previous?.schema);
      expect(payload.properties['schemaVersion']).toMatchObject({ const: definition.previous?.schemaVersion });
    }
  });

  it('names every header of the contract', () => {
    const named = new Set(
      Object.values(document.components.messages).flatMap((message) =>
        Object.keys((message.headers as { properties: object }).properties),
      ),
    );
    for (const header of contractHeaders()) expect(named).toContain(header.name);
  });

  it('says which service publishes and which consumes each event, and who dead-letters', () => {
    const senders = new Map<string, string[]>();
    const receivers = new Map<string, string[]>();
    for (const operation of Object.values(document.operations)) {
      const service = (operation.tags as { name: string }[])[0].name;
      for (const message of operation.messages) {
        const id = message.$ref.split('/').pop() as string;
        const map = operation.action === 'send' ? senders : receivers;
        map.set(id, [...(map.get(id) ?? []), service]);
      }
    }
    for (const service of CONSUMING_SERVICES) {
      for (const definition of EVENT_SERVICES[service].publishes) expect(senders.get(definition.type)).toEqual([service]);
      for (const definition of EVENT_SERVICES[service].consumes) {
        expect(receivers.get(definition.type)).toContain(service);
        const previousId = previousMessageId(definition);
        if (previousId) expect(receivers.get(previousId)).toContain(service);
      }
      expect(document.operations[`${service}SendsDeadLetters`]).toMatchObject({
        action: 'send',
        channel: { $ref: `#/channels/${service}DeadLetter` },
      });
    }
    for (const definition of EVENT_DEFINITIONS) expect(senders.get(definition.type)).toHaveLength(1);
    expect(document.operations['inventoryConsumesOrdersOrder']['bindings']).toMatchObject({
      kafka: { groupId: { type: 'string', enum: ['inventory'] } },
    });
  });

  it('has examples that validate against their message schemas', () => {
    const ajv = new Ajv({ allErrors: true, strict: false });
    addFormats(ajv);
    let checked = 0;
    for (const [id, message] of Object.entries(document.components.messages)) {
      expect(message.examples.length).toBeGreaterThan(0);
      for (const example of message.examples) {
        const payloadOk = ajv.validate(message.payload, example.payload);
        expect({ id, errors: payloadOk ? null : ajv.errors }).toEqual({ id, errors: null });
        const headersOk = ajv.validate(message.headers, example.headers);
        expect({ id, errors: headersOk ? null : ajv.errors }).toEqual({ id, errors: null });
        const keyOk = ajv.validate(message.bindings.kafka.key, (example.payload as { key: string }).key);
        expect({ id, errors: keyOk ? null : ajv.errors }).toEqual({ id, errors: null });
        checked += 1;
      }
    }
    expect(checked).toBe(Object.keys(document.components.messages).length);
  });

  it("gives each service its own operations and only the channels and messages they use", () => {
    const part = asyncApiDocument({ partitions: 12, service: 'catalog' });
    expect(Object.keys(part.operations).sort()).toEqual([
      'catalogConsumesInventoryPetStatus',
      'catalogPublishesCatalogPet',
      'catalogSendsDeadLetters',
    ]);
    expect(Object.values(part.channels).map((channel) => channel.address).sort()).toEqual([
      'catalog.dead-letter.v1',
      'catalog.pet.v1',
      'inventory.pet-status.v1',
    ]);
    expect(Object.keys(part.components.messages).sort()).toEqual([
      'DeadLetter',
      'PetCreated',
      'PetDeleted',
      'PetStatusRecomputed',
      'PetUpdated',
    ]);
  });
});
