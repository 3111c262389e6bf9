import { randomBytes } from 'node:crypto';
import { homedir } from 'node:os';

/** Names a whole Jest run (./jest/global-setup.ts); Jest's workers inherit it. */
export const TEST_RUN_VARIABLE = 'PETSTORE_TEST_RUN';

/** This Jest run's name, or one of this process's own outside Jest. */
const testRun = process.env[TEST_RUN_VARIABLE] || randomBytes(4).toString('hex');

/**
 * A Kafka namespace no other suite uses (`t-<run>-1a2b3c4d.`): every topic and consumer group of
 * the suite is prefixed with it, so concurrent suites never see each other's events, and the
 * run's name in it lets the run delete them all when it ends (see `deleteTestRunTopics`).
 */
export function uniqueNamespace(prefix = 't'): string {
  return `${prefix}-${testRun}-${randomBytes(4).toString('hex')}.`;
}

/** Whether a topic or consumer group is in a namespace that `uniqueNamespace` made in the run `run`. */
export function isOfTestRun(name: string, run: string): boolean {
  return new RegExp(`^[a-z-]+-${run}-[0-9a-f]{8}\\.`).test(name);
}

/** `postgres://postgres@127.0.0.1:5432/petstore_<service>_test`, or TEST_DATABASE_URL_<SERVICE> when set. */
export function testDatabaseUrl(service: string): string {
  const variable = `TEST_DATABASE_URL_${service.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
  const override = process.env[variable];
  if (override !== undefined && override !== '') return override;
  return `postgres://postgres@127.0.0.1:5432/petstore_${service.toLowerCase().replace(/[^a-z0-9]/g, '_')}_test`;
}

/** Where scripts/kafka.sh keeps the test broker's CA and passwords: KAFKA_SECRETS_DIR, or the local broker's. */
export function testKafkaSecretsDir(): string {
  return process.env['KAFKA_SECRETS_DIR'] || `${homedir()}/.cache/petstore/kafka-data/secrets`;
}

/** The broker the tests use: KAFKA_BROKERS, or the local one. */
export function testKafkaBrokers(): string[] {
  return (process.env['KAFKA_BROKERS'] || '127.0.0.1:9092')
    .split(',')
    .map((broker) => broker.trim())
    .filter(Boolean);
}
