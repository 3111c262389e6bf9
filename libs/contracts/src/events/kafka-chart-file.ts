import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
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

const content = (): string => `${JSON.stringify(kafkaChartTable(), null, 2)}\n`;

/** Whether the committed file differs from what the access table makes now. */
export function kafkaChartFileIsStale(root: string): boolean {
  try {
    return readFileSync(join(root, KAFKA_CHART_FILE), 'utf8') !== content();
  } catch {
    return true;
  }
}

export function writeKafkaChartFile(root: string): void {
  writeFileSync(join(root, KAFKA_CHART_FILE), content());
}
