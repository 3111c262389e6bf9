import type { Env } from '@petstore/config';
import { KAFKA_SECURITY_VARIABLES, LogLevel, createKafkaClient, provisionKafka } from '@petstore/kafka';
import { freePort } from './free-port';
import { testKafkaBrokers } from './test-environment';

const provisioned = new Map<string, Promise<void>>();

/**
 * The namespace's topics and ACLs, as a deployment's provisioning makes them before its services
 * start (the services may not create topics); once per namespace and process.
 */
export function provisionTestNamespace(namespace: string): Promise<void> {
  let provisioning = provisioned.get(namespace);
  if (!provisioning) {
    provisioning = (async () => {
      const admin = createKafkaClient({ clientId: `${namespace}provision`, brokers: testKafkaBrokers(), logLevel: LogLevel.ERROR }).admin();
      await admin.connect();
      try {
        await provisionKafka(admin, namespace);
      } finally {
        await admin.disconnect();
      }
    })();
    provisioning.catch(() => provisioned.delete(namespace));
    provisioned.set(namespace, provisioning);
  }
  return provisioning;
}

export interface ServiceEnvOptions {
  namespace: string;
  databaseUrl: string;
  /** LOG_LEVEL, unless the test run sets one. */
  logLevel: string;
  /** More variables, e.g. CATALOG_RPC; they win over the ones set here. */
  env?: Env;
}

/** The variables of a service under test: free ports, the test database, the suite's namespace for Kafka and for RPC subjects, the suites' NATS server. */
export async function serviceTestEnv({ namespace, databaseUrl, logLevel, env = {} }: ServiceEnvOptions) {
  await provisionTestNamespace(namespace);
  const [httpPort, rpcPort] = [await freePort(), await freePort()];
  const variables: Env = {
    NODE_ENV: 'test',
    LOG_LEVEL: process.env['LOG_LEVEL'] ?? logLevel,
    HOST: '127.0.0.1',
    HTTP_PORT: String(httpPort),
    RPC_PORT: String(rpcPort),
    DATABASE_URL: databaseUrl,
    KAFKA_BROKERS: testKafkaBrokers().join(','),
    KAFKA_NAMESPACE: namespace,
    // The run's Kafka principal (Jest's global setup), which the service's own clients use too.
    ...Object.fromEntries(Object.values(KAFKA_SECURITY_VARIABLES).map((variable) => [variable, process.env[variable]])),
    NATS_SUBJECT_PREFIX: namespace,
    // The suites' NATS server (Jest's global setup); the user is the service's own (natsIdentityEnv).
    NATS_SERVERS: process.env['NATS_SERVERS'],
    NATS_TLS_CA_FILE: process.env['NATS_TLS_CA_FILE'],
    ...env,
  };
  return { variables, httpPort, rpcPort };
}
