import { connect } from 'node:net';
import { LogLevel, createKafkaClient } from '@petstore/kafka';
import { AclOperationTypes, AclPermissionTypes, AclResourceTypes, ResourcePatternTypes } from 'kafkajs';
import { TEST_RUN_VARIABLE, isOfTestRun, testKafkaBrokers } from './test-environment';

/**
 * A broker that is not running has nothing to clean, and a unit-only run must not wait for one.
 * (tools/stack has `canConnect`, but a lib may not import a tool.)
 */
function listens(address: string): Promise<boolean> {
  const [host, port] = address.split(':');
  return new Promise((resolve) => {
    const socket = connect({ host, port: Number(port), timeout: 500 });
    const answer = (listening: boolean) => {
      socket.destroy();
      resolve(listening);
    };
    socket.once('connect', () => answer(true));
    socket.once('timeout', () => answer(false));
    socket.once('error', () => answer(false));
  });
}

/**
 * Deletes the topics, consumer groups and ACLs that the suites of the run `run` made: without it every
 * `npm test` leaves about a thousand partitions on the everyday broker, and each one lengthens
 * its next restart. A failure only warns: leftovers cost restart time, never a test.
 */
export async function deleteTestRunTopics(run = process.env[TEST_RUN_VARIABLE], brokers = testKafkaBrokers()): Promise<void> {
  if (!run || !(await listens(brokers[0]))) return;
  const admin = createKafkaClient({ clientId: 'test-run-teardown', brokers, logLevel: LogLevel.NOTHING }).admin();
  try {
    await admin.connect();
    // The ACLs their provisioning gave (provisionTestNamespace), each exactly as it is stored.
    const { resources } = await admin.describeAcls({
      resourceType: AclResourceTypes.ANY,
      resourcePatternType: ResourcePatternTypes.ANY,
      operation: AclOperationTypes.ANY,
      permissionType: AclPermissionTypes.ANY,
    });
    const filters = resources
      .filter((resource) => isOfTestRun(resource.resourceName, run))
      .flatMap(({ acls, ...resource }) => acls.map((acl) => ({ ...resource, ...acl })));
    if (filters.length > 0) await admin.deleteAcls({ filters });
    const topics = (await admin.listTopics()).filter((topic) => isOfTestRun(topic, run));
    if (topics.length > 0) await admin.deleteTopics({ topics, timeout: 30_000 });
    const groups = (await admin.listGroups()).groups.map((group) => group.groupId).filter((group) => isOfTestRun(group, run));
    if (groups.length > 0) await admin.deleteGroups(groups);
  } catch (error) {
    console.warn(`[test run ${run}] its topics stay on the broker (\`bash scripts/kafka.sh reset\` empties it): ${String(error)}`);
  } finally {
    await admin.disconnect();
  }
}
