import { resolve } from 'node:path';
import { breakingChanges, type SchemaRecord } from './compatibility';
import { defineEvent, type AnyEventDefinition } from './define-event';
import { OrderCancelled } from './order-cancelled/order-cancelled.event';
import { PetCreated } from './pet-created/pet-created.event';
import { EVENT_DEFINITIONS } from './registry';
import { readSchemaRecords, recordOf, schemaRecordProblems } from './schema-records';

const repositoryRoot = resolve(__dirname, '../../../..');

describe('the recorded schema versions (libs/contracts/schemas)', () => {
  it('hold every version of every event, and every definition is compatible with its release', () => {
    const records = readSchemaRecords(repositoryRoot);
    expect(schemaRecordProblems(records)).toEqual([]);
    for (const definition of EVENT_DEFINITIONS) {
      expect([...(records.get(definition.type)?.keys() ?? [])].sort()).toEqual(
        Array.from({ length: definition.schemaVersion }, (_, index) => index + 1),
      );
    }
  });
});

/** OrderCancelled's record with its payload schema changed by `change`. */
function changed(change: (payload: Payload) => void, record: SchemaRecord = recordOf(OrderCancelled)): SchemaRecord {
  const copy = JSON.parse(JSON.stringify(record)) as SchemaRecord & { payload: Payload };
  change(copy.payload);
  return copy;
}
interface Payload {
  required: string[];
  properties: Record<string, Record<string, unknown>>;
}

describe('breakingChanges: what a consumer one version behind cannot read', () => {
  const released = recordOf(OrderCancelled);

  it.each([
    [
      'removing a field a consumer reads',
      changed((payload) => {
        delete payload.properties['quantity'];
        payload.required = payload.required.filter((field) => field !== 'quantity');
      }),
      'a consumer of the released version 1 reading it as changed: /quantity is required but not written (a field removed, renamed or added as required)',
    ],
    [
      'renaming a field',
      changed((payload) => {
        payload.properties['units'] = payload.properties['quantity'];
        delete payload.properties['quantity'];
        payload.required = payload.required.map((field) => (field === 'quantity' ? 'units' : field));
      }),
      'a consumer of the released version 1 reading it as changed: /quantity is required but not written (a field removed, renamed or added as required)',
    ],
    [
      'adding a required field',
      changed((payload) => {
        payload.properties['reason'] = { type: 'string' };
        payload.required.push('reason');
      }),
      'a consumer of the change reading the released version 1: /reason is required but not written (a field removed, renamed or added as required)',
    ],
    [
      'narrowing a type',
      changed((payload) => (payload.properties['orderId'] = { type: 'string' })),
      'a consumer of the change reading the released version 1: /orderId is integer but read as string',
    ],
    [
      'narrowing an enum',
      changed((payload) => (payload.properties['previousStatus']['enum'] = ['placed'])),
      'a consumer of the change reading the released version 1: /previousStatus may be "approved", which the reader refuses',
    ],
    [
      'widening an enum',
      changed((payload) => (payload.properties['previousStatus']['enum'] = ['placed', 'approved', 'delivered'])),
      'a consumer of the released version 1 reading it as changed: /previousStatus may be "delivered", which the reader refuses',
    ],
    [
      'tightening a bound',
      changed((payload) => (payload.properties['quantity']['maximum'] = 100)),
      'a consumer of the change reading the released version 1: /quantity has maximum 1000 but is read with maximum 100',
    ],
    [
      'changing the key',
      { ...released, key: '/orderId' as const },
      "the key changed from /petId to /orderId: one pet's events would no longer share a partition",
    ],
    [
      'using a keyword the check cannot compare',
      changed((payload) => (payload.properties['quantity']['multipleOf'] = 2)),
      'a consumer of the released version 1 reading it as changed: /quantity uses multipleOf, which this check cannot compare',
    ],
  ])('breaks on %s', (_change, newer, problem) => {
    expect(breakingChanges(released, newer)).toContain(problem);
  });

  it('breaks on making an optional field required', () => {
    const withOptionalReason = changed((payload) => (payload.properties['reason'] = { type: 'string', maxLength: 200 }));
    const withRequiredReason = changed((payload) => payload.required.push('reason'), withOptionalReason);

    expect(breakingChanges(withOptionalReason, withRequiredReason)).toEqual([
      'a consumer of the change reading the released version 1: /reason is required but written only sometimes',
    ]);
  });

  it('lets an optional field be added (tolerant readers drop it) and descriptions change', () => {
    expect(
      breakingChanges(
        released,
        changed((payload) => {
          payload.properties['reason'] = { type: 'string', maxLength: 200 };
          payload.properties['orderId']['description'] = 'The order, as orders numbers it.';
        }),
      ),
    ).toEqual([]);
    expect(breakingChanges(recordOf(PetCreated), recordOf(PetCreated))).toEqual([]);
  });
});

describe('schemaRecordProblems', () => {
  const records = readSchemaRecords(repositoryRoot);
  const redefined = (spec: Partial<Parameters<typeof defineEvent>[0]>): AnyEventDefinition =>
    defineEvent({
      type: OrderCancelled.type,
      summary: OrderCancelled.summary,
      topic: OrderCancelled.topic,
      schemaVersion: OrderCancelled.schemaVersion,
      key: OrderCancelled.keyPointer,
      example: OrderCancelled.example,
      schema: OrderCancelled.payloadSchema as never,
      ...spec,
    } as Parameters<typeof defineEvent>[0]);
  const withoutQuantity = changed((payload) => {
    delete payload.properties['quantity'];
    payload.required = payload.required.filter((field) => field !== 'quantity');
  }).payload;

  it('fails an incompatible change that keeps the schema version', () => {
    const [problem] = schemaRecordProblems(records, [redefined({ schema: withoutQuantity as never })]);
    expect(problem).toMatch(/^OrderCancelled changed incompatibly without raising its schemaVersion \(1\): /);
  });

  it('asks for a compatible change to be recorded', () => {
    const withReason = changed((payload) => (payload.properties['reason'] = { type: 'string' })).payload;
    expect(schemaRecordProblems(records, [redefined({ schema: withReason as never })])).toEqual([
      'OrderCancelled changed compatibly since libs/contracts/schemas/OrderCancelled/v1.json was written: npx nx run contracts:record-schemas',
    ]);
  });

  it('wants a raised version recorded, the previous one still read, and upgraded when its shape differs', () => {
    const version2 = { schemaVersion: 2, schema: withoutQuantity as never };
    expect(schemaRecordProblems(records, [redefined(version2)])).toEqual([
      'OrderCancelled version 2 is not recorded: npx nx run contracts:record-schemas',
      'OrderCancelled no longer reads version 1: consumers must accept the previous version while its producers may still run (set `previous`)',
    ]);
    const recorded = new Map(records);
    recorded.set('OrderCancelled', new Map([...records.get('OrderCancelled') ?? [], [2, { ...recordOf(OrderCancelled), schemaVersion: 2, payload: withoutQuantity }]]));
    const readsVersion1 = { ...version2, previous: { schemaVersion: 1, schema: OrderCancelled.payloadSchema } };
    expect(schemaRecordProblems(recorded, [redefined(readsVersion1)])).toEqual([]);
    const version1WithoutUpgrade = { ...version2, schema: OrderCancelled.payloadSchema as never, previous: { schemaVersion: 1, schema: withoutQuantity } };
    recorded.set('OrderCancelled', new Map([[1, { ...recordOf(OrderCancelled), payload: withoutQuantity }], [2, { ...recordOf(OrderCancelled), schemaVersion: 2 }]]));
    expect(schemaRecordProblems(recorded, [redefined(version1WithoutUpgrade)])).toEqual([
      'OrderCancelled version 1 needs an upgrade to be read as version 2: a consumer of version 2 reading version 1: /quantity is required but not written (a field removed, renamed or added as required)',
    ]);
  });
});
