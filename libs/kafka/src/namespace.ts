/**
 * Every topic and consumer group name is prefixed with the namespace (KAFKA_NAMESPACE):
 * empty in production, unique per test suite so that concurrent runs never see each
 * other's messages. The prefix is used as is; by convention it ends with a dot (`t-1a2b3c4d.`).
 */
export function namespaced(namespace: string | undefined, name: string): string {
  return `${namespace ?? ''}${name}`;
}

const VALID = /^[a-zA-Z0-9._-]*$/;

export function assertValidNamespace(namespace: string): void {
  if (!VALID.test(namespace) || namespace.length > 100) {
    throw new Error(`Invalid Kafka namespace "${namespace}": use at most 100 of a-z A-Z 0-9 . _ -`);
  }
}
