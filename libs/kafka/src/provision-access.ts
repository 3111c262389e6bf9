import { allTopics, kafkaAccessTable, type KafkaAcl, type KafkaOperation } from '@petstore/contracts';
import { AclOperationTypes, AclPermissionTypes, AclResourceTypes, ResourcePatternTypes, type Admin, type AclEntry } from 'kafkajs';
import { processLogger } from '@petstore/observability';
import { namespaced } from './namespace';
import { provisionTopics, topicSettingsFromEnv, untilReadyInARow, type TopicSettings } from './provision-topics';

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
  const entries = aclEntries(namespace);
  try {
    await admin.createAcls({ acl: entries });
  } catch (error) {
    // A broker without an authorizer (compose's, until it has one) enforces no ACL at all.
    if ((error as { type?: string }).type !== 'SECURITY_DISABLED') throw error;
    processLogger().warn({ context: 'kafka-provision' }, 'The broker has no authorizer: every client may do anything');
    return;
  }
  await waitForAcls(admin, entries);
}

/**
 * Resolves once the brokers answer with every entry. createAcls returns once the controller has
 * them; a broker refuses the principals until it has applied them too (0.2–0.5 s on the local
 * broker after a namespace of 12-partition topics), so a service started at once would be refused
 * its topics.
 */
async function waitForAcls(admin: Admin, entries: AclEntry[], timeoutMs = 10_000): Promise<void> {
  // One question per resource pattern: the broker answers exactly the entries bound to it.
  const expected = new Map<string, { filter: AclEntry; count: number }>();
  for (const entry of entries) {
    const key = `${entry.resourceType} ${entry.resourcePatternType} ${entry.resourceName}`;
    const known = expected.get(key);
    if (known) known.count += 1;
    else expected.set(key, { filter: entry, count: 1 });
  }
  await untilReadyInARow(
    async () => {
      const answers = await Promise.all(
        [...expected.values()].map(async ({ filter, count }) => {
          const { resources } = await admin.describeAcls({
            resourceType: filter.resourceType,
            resourceName: filter.resourceName,
            resourcePatternType: filter.resourcePatternType,
            operation: AclOperationTypes.ANY,
            permissionType: AclPermissionTypes.ANY,
          });
          return resources.reduce((sum, resource) => sum + resource.acls.length, 0) >= count;
        }),
      );
      return answers.every(Boolean);
    },
    timeoutMs,
    () => new Error(`The brokers did not apply the ACLs of ${entries.length} entries within ${timeoutMs} ms`),
  );
}
