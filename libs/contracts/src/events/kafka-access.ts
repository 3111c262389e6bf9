import { EVENT_SERVICES, type EventService } from './services';
import { CONSUMING_SERVICES, allTopics, deadLetterTopic, eventTopics } from './topics';

/**
 * Who may do what on the broker. Every identity that connects to Kafka is one of these
 * principals; the broker's ACLs (scripts/kafka.sh, compose, the chart's KafkaUsers) are this
 * table, so a new event or consumer in EVENT_SERVICES changes the rights with it.
 *
 * The administrator (KAFKA_ADMIN_PRINCIPAL) is a super user of the broker and has no row: it
 * creates the topics and the ACLs before any service starts, as migrations create the tables.
 */
export const KAFKA_TOOL_PRINCIPALS = {
  /** `dlt` (libs/kafka dead-letter-cli): reads the dead-letter topics, replays onto the event topics. */
  deadLetters: 'dead-letters',
  /** Tests' and chaos's observer: reads every topic of its namespace to check what the services wrote. */
  probe: 'probe',
  /** The benchmark's load and its observer. */
  bench: 'bench',
} as const;

export const KAFKA_ADMIN_PRINCIPAL = 'admin';

export type KafkaToolPrincipal = (typeof KAFKA_TOOL_PRINCIPALS)[keyof typeof KAFKA_TOOL_PRINCIPALS];
export type KafkaPrincipal = EventService | KafkaToolPrincipal;

/** Kafka's ACL operations as kafka-acls and Strimzi spell them. */
export type KafkaOperation = 'Read' | 'Write' | 'Describe';

export interface KafkaAcl {
  resource: 'topic' | 'group';
  /** `literal`: exactly this name; `prefix`: every name that starts with it. */
  patternType: 'literal' | 'prefix';
  /** Namespaced (KAFKA_NAMESPACE included). */
  name: string;
  operations: readonly KafkaOperation[];
}

export function kafkaPrincipals(): KafkaPrincipal[] {
  return [...CONSUMING_SERVICES, ...Object.values(KAFKA_TOOL_PRINCIPALS)];
}

/**
 * The ACLs of every principal in the namespace `namespace` (empty in production; a test suite's
 * own prefix in tests, so that its rights end where its topics do).
 */
export function kafkaAccessTable(namespace = ''): Record<KafkaPrincipal, KafkaAcl[]> {
  const name = (plain: string) => `${namespace}${plain}`;
  const topics = (names: Iterable<string>, operations: readonly KafkaOperation[]): KafkaAcl[] =>
    [...new Set(names)].sort().map((topic) => ({ resource: 'topic', patternType: 'literal', name: name(topic), operations }));
  const group = (patternType: KafkaAcl['patternType'], groupName: string): KafkaAcl => ({
    resource: 'group',
    patternType,
    name: name(groupName),
    operations: ['Read', 'Describe'],
  });

  const service = (service: EventService): KafkaAcl[] => {
    const { publishes, consumes } = EVENT_SERVICES[service];
    return [
      // The outbox relay's writes; Describe for the metadata every producer asks first.
      ...topics([...publishes.map((event) => event.topic), deadLetterTopic(service)], ['Write', 'Describe']),
      ...topics(
        consumes.map((event) => event.topic),
        ['Read', 'Describe'],
      ),
      // Its one consumer group, named after the service (libs/messaging).
      group('literal', service),
    ];
  };

  return {
    catalog: service('catalog'),
    orders: service('orders'),
    inventory: service('inventory'),
    'dead-letters': [
      ...topics(CONSUMING_SERVICES.map(deadLetterTopic), ['Read', 'Describe']),
      // A replay goes back to the topic the letter came from.
      ...topics(eventTopics(), ['Write', 'Describe']),
      // `<service>.dead-letter-tools` and its readers' `<service>.dead-letter-tools.reader-<uuid>`.
      ...CONSUMING_SERVICES.map((service) => group('prefix', `${service}.dead-letter-tools`)),
    ],
    probe: [...topics(allTopics(), ['Read', 'Describe']), group('prefix', 'probe.')],
    bench: [...topics(allTopics(), ['Read', 'Describe']), group('prefix', 'bench.')],
  };
}
