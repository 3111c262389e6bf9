import { randomBytes } from 'node:crypto';
import { KAFKA_ADMIN_PRINCIPAL } from '@petstore/contracts';
import { KAFKA_SECURITY_VARIABLES } from '@petstore/kafka';
import { TEST_RUN_VARIABLE, testKafkaSecretsDir } from '../test-environment';

/**
 * Names the Jest run before its workers start, so they inherit the name (see `uniqueNamespace`),
 * and makes the run's own Kafka clients the administrator: the tests provision each suite's
 * namespace and publish the events of any service. The spawned stacks run each service as its
 * own principal, and kafka-access.int-spec checks every principal's rights.
 */
export default async function nameTestRun(): Promise<void> {
  process.env[TEST_RUN_VARIABLE] ||= randomBytes(4).toString('hex');
  if (!process.env[KAFKA_SECURITY_VARIABLES.username]) {
    const secrets = testKafkaSecretsDir();
    process.env[KAFKA_SECURITY_VARIABLES.username] = KAFKA_ADMIN_PRINCIPAL;
    process.env[KAFKA_SECURITY_VARIABLES.passwordFile] = `${secrets}/${KAFKA_ADMIN_PRINCIPAL}.password`;
    process.env[KAFKA_SECURITY_VARIABLES.tlsCaFile] = `${secrets}/ca.pem`;
  }
}
