/**
 * Kafka in the chart authenticates every client and allows each its own job, from the access table
 * of libs/contracts: every pod mounts the credentials of its own principal and no other's (the
 * administrator's only in the provisioning Job), Strimzi's listener asks for TLS and SCRAM and its
 * KafkaUsers carry exactly the table's ACLs, and the committed files/kafka-access.json is current.
 */
import {
  CONSUMING_SERVICES,
  KAFKA_ADMIN_PRINCIPAL,
  KAFKA_TOOL_PRINCIPALS,
  kafkaAccessTable,
  kafkaChartFileIsStale,
  kafkaPrincipals,
  type KafkaAcl,
} from '@petstore/contracts';
import { ofKind, render, root, valueSetNames, type K8sObject } from './render';

const EVERY_PRINCIPAL = [...kafkaPrincipals(), KAFKA_ADMIN_PRINCIPAL];
/** The principals whose KafkaUser the chart creates: the services, and the dead-letter tool it documents. */
const CHART_PRINCIPALS = [...CONSUMING_SERVICES, KAFKA_TOOL_PRINCIPALS.deadLetters];

interface SecretFile {
  secretName: string;
  key: string;
}
interface Pod {
  /** The Deployment's or Job's component label. */
  owner: string;
  config: Record<string, string>;
  spec: {
    volumes?: { name: string; secret?: { secretName: string; items?: { key: string; path: string }[] } }[];
    containers: {
      env?: { name: string; value?: string; valueFrom?: { secretKeyRef?: SecretFile & { name: string } } }[];
      envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
      volumeMounts?: { name: string; mountPath: string }[];
    }[];
  };
}

/** Every pod the Deployments and Jobs would create, with its environment (ConfigMaps and `env` values together). */
function podsOf(objects: K8sObject[]): Pod[] {
  return objects
    .filter((object) => object.kind === 'Deployment' || object.kind === 'Job')
    .map((object) => {
      const spec = object.spec.template.spec as Pod['spec'];
      const config: Record<string, string> = {};
      for (const container of spec.containers) {
        for (const source of container.envFrom ?? []) {
          const map = objects.find((candidate) => candidate.kind === 'ConfigMap' && candidate.metadata.name === source.configMapRef?.name);
          Object.assign(config, map?.data ?? {});
        }
        for (const variable of container.env ?? []) if (variable.value !== undefined) config[variable.name] = variable.value;
      }
      return { owner: object.metadata.labels?.['app.kubernetes.io/component'] ?? object.metadata.name, config, spec };
    });
}

/** The Secret and key a file of the pod comes from, when a Secret volume is mounted there. */
function secretFileAt(pod: Pod, file: string | undefined): SecretFile | undefined {
  if (!file) return undefined;
  for (const container of pod.spec.containers) {
    for (const mount of container.volumeMounts ?? []) {
      if (!file.startsWith(`${mount.mountPath}/`)) continue;
      const volume = pod.spec.volumes?.find((candidate) => candidate.name === mount.name);
      const item = volume?.secret?.items?.find((candidate) => candidate.path === file.slice(mount.mountPath.length + 1));
      if (volume?.secret && item) return { secretName: volume.secret.secretName, key: item.key };
    }
  }
  return undefined;
}

/** Every Secret key a pod can read: its Secret volumes' items, and its environment's secretKeyRefs. */
function secretKeysOf(pod: Pod): SecretFile[] {
  const mounted = (pod.spec.volumes ?? []).flatMap(({ secret }) =>
    secret ? (secret.items ?? [{ key: '*', path: '' }]).map((item) => ({ secretName: secret.secretName, key: item.key })) : [],
  );
  const referenced = pod.spec.containers.flatMap((container) => [
    ...(container.env ?? []).flatMap((variable) => (variable.valueFrom?.secretKeyRef ? [{ secretName: variable.valueFrom.secretKeyRef.name, key: variable.valueFrom.secretKeyRef.key }] : [])),
    ...(container.envFrom ?? []).flatMap((source) => (source.secretRef ? [{ secretName: source.secretRef.name, key: '*' }] : [])),
  ]);
  return [...mounted, ...referenced];
}

/** Where the chart keeps each principal's Kafka password, in the mode of `objects`. */
function passwordOf(objects: K8sObject[], principal: string): SecretFile {
  const [kafka] = ofKind(objects, 'Kafka');
  if (kafka) return { secretName: `${kafka.spec.entityOperator.userOperator.secretPrefix}${principal}`, key: 'password' };
  return { secretName: 'petstore-secrets', key: `${principal}-kafka-password` };
}

/** The principals whose password a pod can read. */
function kafkaPasswordsIn(objects: K8sObject[], pod: Pod): string[] {
  const keys = secretKeysOf(pod);
  return EVERY_PRINCIPAL.filter((principal) => {
    const password = passwordOf(objects, principal);
    return keys.some(({ secretName, key }) => secretName === password.secretName && (key === password.key || key === '*'));
  });
}

/** The ACLs of a principal as Strimzi's KafkaUser spells them. */
const strimziAcls = (acls: KafkaAcl[]) =>
  acls.map((acl) => ({ resource: { type: acl.resource, name: acl.name, patternType: acl.patternType }, operations: [...acl.operations] }));

describe('files/kafka-access.json', () => {
  it('is the access table of libs/contracts as it is now (npx nx run contracts:kafka-chart)', () => {
    expect(kafkaChartFileIsStale(root)).toBe(false);
  });
});

describe.each(valueSetNames)('Kafka credentials with the %s values', (valueSet) => {
  const objects = render(valueSet);
  const pods = podsOf(objects);
  const [kafka] = ofKind(objects, 'Kafka');

  it.each(CONSUMING_SERVICES)('give %s its own principal, password and the brokers\' CA, and no other principal\'s password', (service) => {
    const pod = pods.find((candidate) => candidate.owner === service) as Pod;
    expect(pod.config.KAFKA_SASL_USERNAME).toBe(service);
    expect(secretFileAt(pod, pod.config.KAFKA_SASL_PASSWORD_FILE)).toEqual(passwordOf(objects, service));
    const ca = kafka ? `${kafka.metadata.name}-cluster-ca-cert` : 'kafka-ca';
    expect(secretFileAt(pod, pod.config.KAFKA_TLS_CA_FILE)).toEqual({ secretName: ca, key: 'ca.crt' });
    expect(kafkaPasswordsIn(objects, pod)).toEqual([service]);
  });

  it('give the gateway and the migration Jobs no Kafka credential at all', () => {
    for (const pod of pods.filter((candidate) => candidate.owner === 'gateway' || candidate.owner === 'migrate')) {
      expect({ pod: pod.owner, passwords: kafkaPasswordsIn(objects, pod) }).toEqual({ pod: pod.owner, passwords: [] });
      expect(Object.keys(pod.config).filter((key) => key.startsWith('KAFKA_SASL') || key.startsWith('KAFKA_TLS'))).toEqual([]);
    }
  });

  it('mount the administrator\'s password in the kafka-provision Job alone, and that Job only with external Kafka', () => {
    const withAdmin = pods.filter((pod) => kafkaPasswordsIn(objects, pod).includes(KAFKA_ADMIN_PRINCIPAL)).map((pod) => pod.owner);
    expect(withAdmin).toEqual(kafka ? [] : ['kafka-provision']);
  });
});

describe('Kafka run by Strimzi', () => {
  const objects = render('strimzi');
  const [kafka] = ofKind(objects, 'Kafka');

  it('asks every client for TLS and SCRAM-SHA-512, on the one listener the services are sent to', () => {
    const listeners = kafka.spec.kafka.listeners as { name: string; port: number; tls: boolean; authentication?: { type: string } }[];
    expect(listeners.length).toBeGreaterThan(0);
    for (const listener of listeners) expect(listener).toMatchObject({ tls: true, authentication: { type: 'scram-sha-512' } });
    expect(podsOf(objects).find((pod) => pod.owner === 'orders')?.config.KAFKA_BROKERS).toBe(`${kafka.metadata.name}-kafka-bootstrap:${listeners[0].port}`);
  });

  it('allows nothing no ACL allows, with the administrator of the access table as the one super user', () => {
    expect(kafka.spec.kafka.authorization).toEqual({ type: 'simple', superUsers: [KAFKA_ADMIN_PRINCIPAL] });
    expect(kafka.spec.kafka.config['allow.everyone.if.no.acl.found']).toBeUndefined();
    expect(kafka.spec.entityOperator.userOperator).toBeDefined();
  });

  it.each([
    ['no namespace', []],
    ['kafka.namespace shop-', ['kafka.namespace=shop-']],
  ])('gives every principal it runs a SCRAM KafkaUser whose ACLs are its row of the table, with %s', (_what, set) => {
    const namespaced = render('strimzi', ...set);
    const namespace = set.length ? 'shop-' : '';
    const table = kafkaAccessTable(namespace);
    const users = ofKind(namespaced, 'KafkaUser');
    expect(users.map((user) => user.metadata.name).sort()).toEqual([...CHART_PRINCIPALS].sort());
    for (const user of users) {
      expect(user.metadata.labels?.['strimzi.io/cluster']).toBe(kafka.metadata.name);
      expect(user.spec.authentication).toEqual({ type: 'scram-sha-512' });
      expect({ user: user.metadata.name, acls: user.spec.authorization }).toEqual({
        user: user.metadata.name,
        acls: { type: 'simple', acls: strimziAcls(table[user.metadata.name as keyof typeof table]) },
      });
    }
  });

  it('renders no KafkaUser for the administrator, nor for the tests\' and benchmarks\' observers it does not run', () => {
    const names = ofKind(objects, 'KafkaUser').map((user) => user.metadata.name);
    for (const absent of [KAFKA_ADMIN_PRINCIPAL, KAFKA_TOOL_PRINCIPALS.probe, KAFKA_TOOL_PRINCIPALS.bench]) expect(names).not.toContain(absent);
  });

  it('renders no provisioning Job: the Topic and User Operators provision', () => {
    expect(ofKind(objects, 'Job').filter((job) => job.metadata.labels?.['app.kubernetes.io/component'] === 'kafka-provision')).toEqual([]);
  });
});

describe('external Kafka', () => {
  const objects = render('external-kafka');
  const job = ofKind(objects, 'Job').find((candidate) => candidate.metadata.labels?.['app.kubernetes.io/component'] === 'kafka-provision');

  it('is provisioned before install and upgrade by `main.js kafka-provision` as the administrator, in the release\'s namespace and with kafka.topics', () => {
    expect(job?.metadata.annotations?.['helm.sh/hook']).toBe('pre-install,pre-upgrade');
    const [pod] = podsOf([job as K8sObject]);
    expect(pod.spec.containers).toHaveLength(1);
    expect((pod.spec.containers[0] as unknown as { command: string[] }).command).toEqual(['node', 'main.js', 'kafka-provision']);
    expect(pod.config).toMatchObject({
      KAFKA_SASL_USERNAME: KAFKA_ADMIN_PRINCIPAL,
      KAFKA_NAMESPACE: 'shop-',
      KAFKA_BROKERS: 'b-1.kafka.internal:9092,b-2.kafka.internal:9092,b-3.kafka.internal:9092',
      KAFKA_TOPIC_PARTITIONS: '12',
      KAFKA_REPLICATION_FACTOR: '3',
      KAFKA_MIN_INSYNC_REPLICAS: '2',
    });
    expect(secretFileAt(pod, pod.config.KAFKA_SASL_PASSWORD_FILE)).toEqual({ secretName: 'petstore-secrets', key: 'admin-kafka-password' });
    expect(secretFileAt(pod, pod.config.KAFKA_TLS_CA_FILE)).toEqual({ secretName: 'kafka-ca', key: 'ca.crt' });
    expect(kafkaPasswordsIn(objects, pod)).toEqual([KAFKA_ADMIN_PRINCIPAL]);
  });

  it('leaves provisioning to the operator when kafka.external.provision.enabled is false', () => {
    const without = render('external-kafka', 'kafka.external.provision.enabled=false');
    expect(ofKind(without, 'Job').map((candidate) => candidate.metadata.labels?.['app.kubernetes.io/component'])).not.toContain('kafka-provision');
  });
});
