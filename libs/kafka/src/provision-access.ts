import { allTopics, kafkaAccessTable, type KafkaAcl, type KafkaOperation } from '@petstore/contracts';
import { AclOperationTypes, AclPermissionTypes, AclResourceTypes, ResourcePatternTypes, type Admin, type AclEntry } from 'kafkajs';
import { processLogger } from '@petstore/observability';
import { namespaced } from './namespace';
import { provisionTopics, topicSettingsFromEnv, type TopicSettings } from './provision-topics';

const OPERATIONS: Record<KafkaOperation, AclOperationTypes> = {
  Read: AclOperationTypes.READ,
  Write: AclOperationTypes.WRITE,
  Describe: AclOperationTypes.DESCRIBE,
};

/** One ALLOW entry per operation of each ACL of the table, as the broker stores them. */
export function aclEntries(namespace = ''): AclEntry[] {
  return Object.entries(kafkaAccessTable(namespace)).flatMap(([principal, acls]) =>
    acls.flatMap((acl: KafkaAcl) =>
      acl.operations.map((operation) => ({
        resourceType: acl.resource === 'topic' ? AclResourceTypes.TOPIC : AclResourceTypes.GROUP,
        resourceName: acl.name,
        resourcePatternType: acl.patternType === 'literal' ? ResourcePatternTypes.LITERAL : ResourcePatternTypes.PREFIXED,
        principal: `User:${principal}`,
        host: '*',
        operation: OPERATIONS[operation],
        permissionType: AclPermissionTypes.ALLOW,
      })),
    ),
  );
}

/**
 * Provisioning of one namespace, as the administrator, before any service of it starts (as
 * migrations are): every topic of the contract, then every principal's ACLs on them. Both steps
 * are idempotent, so each start and each test suite runs it.
 */
export async function provisionKafka(admin: Admin, namespace = '', settings: TopicSettings = topicSettingsFromEnv()): Promise<void> {
  await provisionTopics(
    admin,
    allTopics().map((topic) => namespaced(namespace, topic)),
    settings,
  );
  try {
    await admin.createAcls({ acl: aclEntries(namespace) });
  } catch (error) {
    // A broker without an authorizer (compose's, until it has one) enforces no ACL at all.
    if ((error as { type?: string }).type !== 'SECURITY_DISABLED') throw error;
    processLogger().warn({ context: 'kafka-provision' }, 'The broker has no authorizer: every client may do anything');
  }
}
