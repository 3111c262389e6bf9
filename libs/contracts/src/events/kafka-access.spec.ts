import { EVENT_SERVICES, Topics, deadLetterTopic, kafkaAccessTable, kafkaPrincipals, type KafkaAcl, type KafkaOperation } from '..';

const allowed = (acls: KafkaAcl[], resource: KafkaAcl['resource'], operation: KafkaOperation, name: string) =>
  acls.some(
    (acl) =>
      acl.resource === resource &&
      acl.operations.includes(operation) &&
      (acl.patternType === 'literal' ? acl.name === name : name.startsWith(acl.name)),
  );
const topicsWith = (acls: KafkaAcl[], operation: KafkaOperation) =>
  acls.filter((acl) => acl.resource === 'topic' && acl.operations.includes(operation)).map((acl) => acl.name).sort();

describe('kafkaAccessTable', () => {
  const table = kafkaAccessTable();

  it('has a row for every principal', () => {
    expect(Object.keys(table).sort()).toEqual(kafkaPrincipals().sort());
  });

  it.each(Object.keys(EVENT_SERVICES) as (keyof typeof EVENT_SERVICES)[])('lets %s write only the topics it owns and its dead-letter topic', (service) => {
    const owned = EVENT_SERVICES[service].publishes.map((event) => event.topic);
    expect(topicsWith(table[service], 'Write')).toEqual([...new Set([...owned, deadLetterTopic(service)])].sort());
  });

  it.each(Object.keys(EVENT_SERVICES) as (keyof typeof EVENT_SERVICES)[])('lets %s read only the topics it consumes, in its own group', (service) => {
    const consumed = EVENT_SERVICES[service].consumes.map((event) => event.topic);
    expect(topicsWith(table[service], 'Read')).toEqual([...new Set(consumed)].sort());
    expect(table[service].filter((acl) => acl.resource === 'group')).toEqual([
      { resource: 'group', patternType: 'literal', name: service, operations: ['Read', 'Describe'] },
    ]);
  });

  it('keeps each service off the others’ topics and groups', () => {
    expect(allowed(table.inventory, 'topic', 'Write', Topics.ordersOrder)).toBe(false);
    expect(allowed(table.orders, 'topic', 'Write', Topics.inventoryStock)).toBe(false);
    expect(allowed(table.catalog, 'topic', 'Read', Topics.ordersOrder)).toBe(false);
    expect(allowed(table.orders, 'group', 'Read', 'inventory')).toBe(false);
    expect(allowed(table.orders, 'topic', 'Read', deadLetterTopic('orders'))).toBe(false);
  });

  it('lets no principal write a topic it reads from another service, except the replaying dead-letter tool', () => {
    for (const principal of kafkaPrincipals().filter((name) => name !== 'dead-letters')) {
      const writes = topicsWith(table[principal], 'Write');
      const others = Object.entries(EVENT_SERVICES)
        .filter(([service]) => service !== principal)
        .flatMap(([, { publishes }]) => publishes.map((event) => event.topic));
      expect(writes.filter((topic) => others.includes(topic as never))).toEqual([]);
    }
  });

  it('gives the observers reading rights only', () => {
    for (const principal of ['probe', 'bench'] as const) expect(topicsWith(table[principal], 'Write')).toEqual([]);
  });

  it('puts every topic and group of the table in the namespace', () => {
    const namespaced = kafkaAccessTable('t-run-1a2b3c4d.');
    for (const principal of kafkaPrincipals()) {
      expect(namespaced[principal]).toHaveLength(table[principal].length);
      for (const acl of namespaced[principal]) expect(acl.name.startsWith('t-run-1a2b3c4d.')).toBe(true);
    }
    expect(allowed(namespaced.orders, 'group', 'Read', 'orders')).toBe(false);
    expect(allowed(namespaced.orders, 'group', 'Read', 't-run-1a2b3c4d.orders')).toBe(true);
  });
});
