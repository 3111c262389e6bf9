import {
  EVENT_DEFINITIONS,
  InvalidEventError,
  OrderCancelled,
  OrderDelivered,
  OrderPlaced,
  PetCreated,
  PetDeleted,
  PetStatusRecomputed,
  PetUpdated,
  StockReleased,
  StockReservationRejected,
  StockReserved,
  TOPIC_OWNERS,
  Topics,
  allTopics,
  causedBy,
  deadLetterTopic,
  defineEvent,
  findEventDefinition,
  parseEnvelope,
  serializeEnvelope,
  type AnyEventDefinition,
} from '..';

const pet = { id: 7, name: 'Rex', categoryId: 2, status: 'available' as const };
const meta = { producer: 'test', correlationId: 'req-1' };

const samples: [AnyEventDefinition, unknown][] = [
  [PetCreated, { pet }],
  [PetUpdated, { pet, previousStatus: 'sold' }],
  [PetDeleted, { petId: 7 }],
  [OrderPlaced, { orderId: 1, petId: 7, quantity: 2 }],
  [OrderCancelled, { orderId: 1, petId: 7, quantity: 2, previousStatus: 'approved' }],
  [OrderDelivered, { orderId: 1, petId: 7, quantity: 2 }],
  [StockReserved, { orderId: 1, petId: 7, quantity: 2, remaining: 0 }],
  [StockReservationRejected, { orderId: 1, petId: 7, reason: 'INSUFFICIENT_STOCK' }],
  [StockReleased, { orderId: 1, petId: 7, quantity: 2 }],
  [PetStatusRecomputed, { petId: 7, status: 'pending', quantity: 0 }],
];

function invalid(fn: () => unknown): InvalidEventError {
  try {
    fn();
  } catch (error) {
    if (error instanceof InvalidEventError) return error;
    throw error;
  }
  throw new Error('expected an InvalidEventError');
}

describe('event contracts', () => {
  it('covers every event of the contract', () => {
    expect(samples.map(([definition]) => definition.type).sort()).toEqual(
      EVENT_DEFINITIONS.map((definition) => definition.type).sort(),
    );
  });

  describe.each(samples.map(([definition, payload]) => [definition.type, definition, payload] as const))(
    '%s',
    (_type, definition, payload) => {
      it('creates an envelope keyed by the pet id that parses back to itself', () => {
        const envelope = definition.create(payload, meta);

        expect(envelope).toMatchObject({
          type: definition.type,
          schemaVersion: definition.schemaVersion,
          producer: 'test',
          correlationId: 'req-1',
          causationId: null,
          key: '7',
          payload,
        });
        expect(definition.topic).toMatch(/\.v1$/);
        expect(definition.parse(serializeEnvelope(envelope))).toEqual(envelope);
        expect(definition.parse(Buffer.from(JSON.stringify(envelope)))).toEqual(envelope);
        expect(findEventDefinition(definition.type)).toBe(definition);
      });

      it('refuses to produce a payload with an unknown field', () => {
        const error = invalid(() => definition.create({ ...(payload as object), extra: 1 }, meta));
        expect(error.details).toEqual(['/ must NOT have additional properties (extra)']);
        expect(error.eventType).toBe(definition.type);
      });
    },
  );

  it('defaults the correlation id to the event id and records the cause', () => {
    const placed = OrderPlaced.create({ orderId: 1, petId: 7, quantity: 1 }, { producer: 'orders' });
    expect(placed.correlationId).toBe(placed.eventId);

    const reserved = StockReserved.create(
      { orderId: 1, petId: 7, quantity: 1, remaining: 3 },
      causedBy(placed, 'inventory'),
    );
    expect(reserved).toMatchObject({
      producer: 'inventory',
      correlationId: placed.eventId,
      causationId: placed.eventId,
    });
  });

  it('rejects payloads that break the schema when producing', () => {
    expect(invalid(() => OrderPlaced.create({ orderId: 1, petId: 7, quantity: 0 }, meta)).details).toEqual([
      '/quantity must be >= 1',
    ]);
    expect(invalid(() => PetCreated.create({ pet: { ...pet, status: 'lost' as never } }, meta)).details).toEqual([
      '/pet/status must be equal to one of the allowed values (available, pending, sold)',
    ]);
    expect(invalid(() => PetDeleted.create({} as never, meta)).details).toEqual([
      "/ must have required property 'petId'",
    ]);
  });

  it('reads tolerantly: unknown envelope and payload fields are dropped', () => {
    const envelope = PetCreated.create({ pet }, meta);
    const newer = { ...envelope, traceId: 'x', payload: { pet: { ...pet, colour: 'brown' }, source: 'import' } };

    expect(PetCreated.parse(JSON.stringify(newer))).toEqual(envelope);
    expect(newer.payload.pet.colour).toBe('brown');
  });

  it('reads an envelope decoded once by parseEnvelope as parse reads the message', () => {
    const envelope = PetCreated.create({ pet }, meta);
    const newer = { ...envelope, traceId: 'x', payload: { pet: { ...pet, colour: 'brown' } } };
    const decoded = parseEnvelope(JSON.stringify(newer));

    expect(PetCreated.read(decoded)).toEqual(envelope);
    expect(invalid(() => PetDeleted.read(decoded)).message).toBe('Expected a PetDeleted event, got PetCreated');
    expect(invalid(() => PetCreated.read(parseEnvelope(JSON.stringify({ ...envelope, payload: { pet: { ...pet, id: '7' } } })))).details).toEqual([
      '/pet/id must be integer',
    ]);
    expect(invalid(() => PetCreated.read(parseEnvelope(JSON.stringify({ ...envelope, key: '8' })))).message).toBe(
      'PetCreated key 8 does not match its payload',
    );
  });

  it('rejects what is not an event of that type', () => {
    const envelope = PetDeleted.create({ petId: 7 }, meta);

    expect(invalid(() => PetDeleted.parse('{not json')).message).toBe('Event is not valid JSON');
    expect(invalid(() => PetDeleted.parse(null)).message).toBe('Event is empty');
    expect(invalid(() => PetCreated.parse(envelope)).message).toBe('Expected a PetCreated event, got PetDeleted');
    expect(invalid(() => PetDeleted.parse({ ...envelope, eventId: 'nope' })).details).toEqual([
      '/eventId must match format "uuid"',
    ]);
    expect(invalid(() => PetDeleted.parse({ ...envelope, payload: { petId: '7' } })).details).toEqual([
      '/petId must be integer',
    ]);
    expect(invalid(() => PetDeleted.parse({ ...envelope, key: '8' })).message).toBe(
      'PetDeleted key 8 does not match its payload',
    );
    const { occurredAt: _, ...withoutTime } = envelope;
    expect(invalid(() => PetDeleted.parse(withoutTime)).details).toEqual([
      "/ must have required property 'occurredAt'",
    ]);
  });

  it('refuses bytes that are not UTF-8 and reads the next message whole', () => {
    const envelope = PetStatusRecomputed.create({ petId: 7, status: 'sold', quantity: 0 }, meta);
    const bytes = Buffer.from(serializeEnvelope(envelope));

    expect(invalid(() => parseEnvelope(Buffer.concat([bytes.subarray(0, 20), Buffer.from([0xc3])])))).toMatchObject({
      message: 'Event is not valid UTF-8',
    });
    expect(parseEnvelope(bytes)).toEqual(JSON.parse(serializeEnvelope(envelope)));
  });

  it('reads any envelope before knowing its type', () => {
    const envelope = PetStatusRecomputed.create({ petId: 7, status: 'sold', quantity: 0 }, meta);
    const read = parseEnvelope(Buffer.from(serializeEnvelope(envelope)));

    expect(read.type).toBe('PetStatusRecomputed');
    expect(PetStatusRecomputed.is(read) && read.payload.status).toBe('sold');
    expect(Object.keys(JSON.parse(serializeEnvelope(envelope)))).toEqual([
      'eventId',
      'type',
      'schemaVersion',
      'occurredAt',
      'producer',
      'correlationId',
      'causationId',
      'key',
      'payload',
    ]);
  });

  it('lists every topic for provisioning, with one dead-letter topic per consuming service', () => {
    expect(allTopics()).toEqual([
      Topics.catalogPet,
      Topics.ordersOrder,
      Topics.inventoryStock,
      Topics.inventoryPetStatus,
      'catalog.dead-letter.v1',
      'orders.dead-letter.v1',
      'inventory.dead-letter.v1',
    ]);
    expect(deadLetterTopic('orders')).toBe('orders.dead-letter.v1');
  });

  it('names one owner per event topic, the service that publishes its events', () => {
    expect(Object.fromEntries(TOPIC_OWNERS)).toEqual({
      [Topics.catalogPet]: 'catalog',
      [Topics.ordersOrder]: 'orders',
      [Topics.inventoryStock]: 'inventory',
      [Topics.inventoryPetStatus]: 'inventory',
    });
  });
});

describe('reading the previous schema version', () => {
  it('reads a StockReservationRejected of version 1, without the quantity version 2 added', () => {
    const current = StockReservationRejected.create({ orderId: 1, petId: 7, reason: 'UNKNOWN_PET', quantity: 3 }, meta);
    const { quantity: _, ...version1Payload } = current.payload;
    const version1 = { ...current, schemaVersion: 1, payload: version1Payload };

    expect(StockReservationRejected.schemaVersion).toBe(2);
    expect(StockReservationRejected.parse(serializeEnvelope(current)).payload).toEqual({
      orderId: 1,
      petId: 7,
      reason: 'UNKNOWN_PET',
      quantity: 3,
    });
    expect(StockReservationRejected.parse(serializeEnvelope(version1))).toEqual(version1);
    // Version 1 knew no quantity: a tolerant reader of version 1 drops it.
    expect(StockReservationRejected.parse({ ...version1, payload: { ...version1Payload, quantity: 3 } }).payload).toEqual(
      version1Payload,
    );
  });

  const renamed = defineEvent<'Renamed', { petId: number; label: string }>({
    type: 'Renamed',
    summary: 'A fixture whose version 2 renamed a field.',
    topic: Topics.catalogPet,
    schemaVersion: 2,
    key: '/petId',
    example: { petId: 7, label: 'Rex' },
    schema: {
      type: 'object',
      required: ['petId', 'label'],
      additionalProperties: false,
      properties: { petId: { type: 'integer', minimum: 1 }, label: { type: 'string' } },
    },
    previous: {
      schemaVersion: 1,
      schema: {
        type: 'object',
        required: ['petId', 'name'],
        additionalProperties: false,
        properties: { petId: { type: 'integer', minimum: 1 }, name: { type: 'string' } },
      },
      upgrade: (payload) => {
        const { petId, name } = payload as { petId: number; name: string };
        return { petId, label: name };
      },
    },
  });
  const envelope = (schemaVersion: number, payload: object) => ({
    ...renamed.create({ petId: 7, label: 'Rex' }, meta),
    schemaVersion,
    payload,
  });

  it('validates each version against its own schema and upgrades the previous one', () => {
    expect(renamed.parse(envelope(1, { petId: 7, name: 'Rex' })).payload).toEqual({ petId: 7, label: 'Rex' });
    expect(renamed.parse(envelope(2, { petId: 7, label: 'Rex' })).payload).toEqual({ petId: 7, label: 'Rex' });
    expect(invalid(() => renamed.parse(envelope(1, { petId: 7, label: 'Rex' }))).details).toEqual([
      "/ must have required property 'name'",
    ]);
    expect(invalid(() => renamed.parse(envelope(2, { petId: 7, name: 'Rex' }))).details).toEqual([
      "/ must have required property 'label'",
    ]);
  });

  it('reads a newer version with the current schema, and refuses one older than the previous', () => {
    expect(renamed.parse(envelope(3, { petId: 7, label: 'Rex', colour: 'brown' })).payload).toEqual({
      petId: 7,
      label: 'Rex',
    });
    expect(invalid(() => PetDeleted.parse({ ...PetDeleted.create({ petId: 7 }, meta), schemaVersion: 0 })).message).toMatch(
      /must be >= 1/,
    );
    const retired = defineEvent<'Retired', { petId: number }>({
      ...PetDeleted,
      type: 'Retired',
      summary: 'A fixture at version 3 that reads only version 2 and 3.',
      schemaVersion: 3,
      key: '/petId',
      schema: PetDeleted.payloadSchema as never,
      previous: { schemaVersion: 2, schema: PetDeleted.payloadSchema },
    });
    expect(invalid(() => retired.parse({ ...retired.create({ petId: 7 }, meta), schemaVersion: 1 })).message).toBe(
      'Retired schema version 1 is no longer read (oldest read: 2)',
    );
  });

  it('refuses a definition whose previous version is not the one before', () => {
    expect(() =>
      defineEvent({ ...renamed, schemaVersion: 3, schema: renamed.payloadSchema as never, key: '/petId', previous: renamed.previous }),
    ).toThrow('Renamed: the previous version of 3 is 2');
  });
});
