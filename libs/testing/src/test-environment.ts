import { randomBytes } from 'node:crypto';

/**
 * A Kafka namespace no other test run uses (`t-1a2b3c4d.`): every topic and consumer group of
 * the suite is prefixed with it, so concurrent runs never see each other's events.
 */
export function uniqueNamespace(prefix = 't'): string {
  return `${prefix}-${randomBytes(4).toString('hex')}.`;
}

/** `postgres://postgres@127.0.0.1:5432/petstore_<service>_test`, or TEST_DATABASE_URL_<SERVICE> when set. */
export function testDatabaseUrl(service: string): string {
  const variable = `TEST_DATABASE_URL_${service.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
  const override = process.env[variable];
  if (override !== undefined && override !== '') return override;
  return `postgres://postgres@127.0.0.1:5432/petstore_${service.toLowerCase().replace(/[^a-z0-9]/g, '_')}_test`;
}

/** The broker the tests use: KAFKA_BROKERS, or the local one. */
export function testKafkaBrokers(): string[] {
  return (process.env['KAFKA_BROKERS'] || '127.0.0.1:9092')
    .split(',')
    .map((broker) => broker.trim())
    .filter(Boolean);
}
