import { chartFile } from '../chart-file';
import { KAFKA_ADMIN_PRINCIPAL, KAFKA_TOOL_PRINCIPALS, kafkaAccessTable, type KafkaAcl, type KafkaPrincipal } from './kafka-access';
import { CONSUMING_SERVICES, allTopics } from './topics';

/**
 * The Kafka access table as the Helm chart reads it (`.Files.Get`): Helm cannot run this code, so
 * the chart renders its KafkaTopics and each principal's KafkaUser from this file, with
 * `kafka.namespace` put in front of every name as kafkaAccessTable(namespace) does, and
 * chart-check checks that the two agree. `npx nx run contracts:kafka-chart` writes it.
 */
export const KAFKA_CHART_FILE = 'deploy/helm/petstore/files/kafka-access.json';

export interface KafkaChartTable {
  /** The super user that provisions topics and ACLs. */
  admin: typeof KAFKA_ADMIN_PRINCIPAL;
  /** The principals the services connect as, one each, named after the service. */
  services: readonly KafkaPrincipal[];
  /** The tools' principals, by role. */
  tools: typeof KAFKA_TOOL_PRINCIPALS;
  /** Every topic, un-namespaced. */
  topics: string[];
  /** Every principal's ACLs, un-namespaced. */
  acls: Record<KafkaPrincipal, KafkaAcl[]>;
}

export function kafkaChartTable(): KafkaChartTable {
  return { admin: KAFKA_ADMIN_PRINCIPAL, services: CONSUMING_SERVICES, tools: KAFKA_TOOL_PRINCIPALS, topics: allTopics(), acls: kafkaAccessTable('') };
}

const file = chartFile(KAFKA_CHART_FILE, kafkaChartTable);

/** Whether the committed file differs from what the access table makes now. */
export const kafkaChartFileIsStale = (root: string): boolean => file.isStale(root);

export const writeKafkaChartFile = (root: string): void => file.write(root);
