/**
 * deploy/helm/petstore, checked without a cluster: helm lint --strict and helm template for each
 * value set; every rendered object against the Kubernetes API's schemas, every custom resource
 * against its CRD; then the chart's own rules (probes, resources, non-root, disruption budgets
 * and autoscalers that select its Deployments, secrets only by reference, Kafka per mode).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse } from 'yaml';
import { allTopics, NATS_IDENTITIES, natsChartFileIsStale, natsServerConfig } from '@petstore/contracts';
import { CRD_FILES, crdDir, unknownFields, validate } from './kube-validate';
import { lint, ofKind, render, renderError, root, valueSetNames, type K8sObject, type ValueSet } from './render';

const WORKLOADS = ['gateway', 'catalog', 'orders', 'inventory'];
const SERVICES = ['catalog', 'orders', 'inventory'];
/** Every topic the services provision: the chart must create each as a KafkaTopic. */
const TOPICS = allTopics();

const component = (object: K8sObject) => object.metadata.labels?.['app.kubernetes.io/component'];
const podLabels = (deployment: K8sObject): Record<string, string> => deployment.spec.template.metadata.labels;
const matches = (selector: Record<string, string>, labels: Record<string, string>) => Object.entries(selector).every(([key, value]) => labels[key] === value);

function podOf(objects: K8sObject[], workload: string) {
  const deployment = ofKind(objects, 'Deployment').find((candidate) => component(candidate) === workload);
  if (!deployment) throw new Error(`no Deployment for ${workload}`);
  return deployment.spec.template.spec;
}

function configOf(objects: K8sObject[], workload: string): Record<string, string> {
  const map = ofKind(objects, 'ConfigMap').find((candidate) => component(candidate) === workload);
  if (!map?.data) throw new Error(`no ConfigMap for ${workload}`);
  return map.data;
}

describe.each(valueSetNames)('the chart with the %s values', (valueSet: ValueSet) => {
  const objects = render(valueSet);
  const deployments = ofKind(objects, 'Deployment');

  it('passes helm lint --strict', () => {
    const result = lint(valueSet);
    expect(result.output).toContain('0 chart(s) failed');
    expect(result.status).toBe(0);
  });

  it('renders only objects the Kubernetes API (or the CRD of their kind) accepts', () => {
    expect(objects.length).toBeGreaterThan(20);
    expect(objects.flatMap(validate)).toEqual([]);
  });

  it('sets no field the Kubernetes API does not define', () => {
    expect(unknownFields(objects)).toEqual([]);
  });

  it('renders a Deployment, Service, ServiceAccount and ConfigMap for every workload', () => {
    for (const kind of ['Deployment', 'Service', 'ServiceAccount', 'ConfigMap']) {
      expect(ofKind(objects, kind).map(component).filter((name) => name !== 'migrate').sort()).toEqual(expect.arrayContaining([...WORKLOADS].sort()));
    }
    for (const deployment of deployments) expect(deployment.spec.template.spec.serviceAccountName).toBe(deployment.metadata.name);
  });

  it('gives every Deployment probes on /health/live and /health/ready, resources, and a non-root read-only context', () => {
    for (const deployment of deployments) {
      const pod = deployment.spec.template.spec;
      expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
      expect(pod.securityContext.runAsUser).toBeGreaterThan(0);
      expect(pod.automountServiceAccountToken).toBe(false);
      for (const container of pod.containers) {
        expect(container.livenessProbe.httpGet).toEqual({ path: '/health/live', port: 'http' });
        expect(container.readinessProbe.httpGet).toEqual({ path: '/health/ready', port: 'http' });
        expect(container.resources.requests).toEqual({ cpu: expect.anything(), memory: expect.anything() });
        expect(container.resources.limits.memory).toBeDefined();
        expect(container.securityContext).toMatchObject({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, privileged: false, capabilities: { drop: ['ALL'] } });
      }
    }
  });

  it('lets every pod finish its drain: terminationGracePeriodSeconds covers SHUTDOWN_DELAY_MS + DRAIN_TIMEOUT_MS', () => {
    for (const deployment of deployments) {
      const config = configOf(objects, component(deployment) as string);
      const drainSeconds = (Number(config.SHUTDOWN_DELAY_MS) + Number(config.DRAIN_TIMEOUT_MS)) / 1000;
      expect(drainSeconds).toBeGreaterThan(0);
      const grace = deployment.spec.template.spec.terminationGracePeriodSeconds;
      expect(grace).toBeGreaterThan(drainSeconds);
      expect(grace).toBeLessThanOrEqual(drainSeconds + 30);
    }
  });

  it('points every autoscaler and disruption budget at a Deployment of the chart; a budget exactly where two replicas or more run', () => {
    const autoscalers = ofKind(objects, 'HorizontalPodAutoscaler');
    for (const autoscaler of autoscalers) {
      expect(autoscaler.apiVersion).toBe('autoscaling/v2');
      const target = deployments.find((deployment) => deployment.metadata.name === autoscaler.spec.scaleTargetRef.name);
      expect(target).toBeDefined();
      expect(autoscaler.spec.scaleTargetRef).toMatchObject({ apiVersion: 'apps/v1', kind: 'Deployment' });
      // The autoscaler owns the count: a replicas field would fight it on every upgrade.
      expect(target?.spec.replicas).toBeUndefined();
    }
    const budgets = ofKind(objects, 'PodDisruptionBudget');
    for (const budget of budgets) {
      expect(budget.apiVersion).toBe('policy/v1');
      expect(deployments.filter((deployment) => matches(budget.spec.selector.matchLabels, podLabels(deployment)))).toHaveLength(1);
    }
    for (const deployment of deployments) {
      const autoscaler = autoscalers.find((candidate) => candidate.spec.scaleTargetRef.name === deployment.metadata.name);
      const least = autoscaler ? autoscaler.spec.minReplicas : deployment.spec.replicas;
      const budgeted = budgets.some((budget) => matches(budget.spec.selector.matchLabels, podLabels(deployment)));
      expect({ deployment: deployment.metadata.name, budgeted }).toEqual({ deployment: deployment.metadata.name, budgeted: least >= 2 });
    }
  });

  it('selects the pods of exactly one Deployment with every Service', () => {
    for (const service of ofKind(objects, 'Service')) {
      expect(deployments.filter((deployment) => matches(service.spec.selector, podLabels(deployment)))).toHaveLength(1);
    }
  });

  it('keeps secrets out: no Secret is rendered, passwords and API keys come from secrets.existingSecret', () => {
    expect(ofKind(objects, 'Secret')).toEqual([]);
    for (const map of ofKind(objects, 'ConfigMap')) {
      expect(Object.keys(map.data ?? {})).not.toEqual(expect.arrayContaining(['API_KEYS']));
      expect(Object.keys(map.data ?? {})).not.toContain('MIGRATION_DATABASE_URL');
      if (map.data?.DATABASE_URL) expect(new URL(map.data.DATABASE_URL).password).toBe('');
    }
    const gateway = deployments.find((deployment) => component(deployment) === 'gateway');
    expect(gateway?.spec.template.spec.containers[0].env).toEqual([{ name: 'API_KEYS', valueFrom: { secretKeyRef: { name: 'petstore-secrets', key: 'api-keys' } } }]);
  });

  it('migrates each database before install and upgrade, as the owner role, in a Job', () => {
    const jobs = ofKind(objects, 'Job').filter((job) => component(job) === 'migrate');
    expect(jobs.map((job) => job.metadata.name.replace(/^.*?-(\w+)-migrate$/, '$1')).sort()).toEqual([...SERVICES].sort());
    for (const job of jobs) {
      expect(job.metadata.annotations?.['helm.sh/hook']).toBe('pre-install,pre-upgrade');
      const container = job.spec.template.spec.containers[0];
      expect(container.command).toEqual(['node', 'main.js', 'migrate']);
      const owner = container.env.find((variable: { name: string }) => variable.name === 'MIGRATION_DATABASE_URL');
      expect(owner.valueFrom.secretKeyRef.key).toMatch(/^(catalog|orders|inventory)-migration-database-url$/);
      expect(job.spec.template.spec.securityContext.runAsNonRoot).toBe(true);
      // Its ServiceAccount is a hook created before it: the release's own objects do not exist yet.
      const account = objects.find((object) => object.kind === 'ServiceAccount' && object.metadata.name === job.spec.template.spec.serviceAccountName);
      expect(Number(account?.metadata.annotations?.['helm.sh/hook-weight'])).toBeLessThan(Number(job.metadata.annotations?.['helm.sh/hook-weight']));
    }
  });

  it('configures the services with the decided environment names', () => {
    for (const workload of WORKLOADS) {
      const config = configOf(objects, workload);
      expect(config).toMatchObject({ RPC_TRANSPORT: 'nats', SHUTDOWN_DELAY_MS: '5000', DRAIN_TIMEOUT_MS: '10000' });
      if (config.RPC_TRANSPORT === 'nats') {
        expect(config.NATS_SERVERS).toMatch(/^nats:\/\//);
        expect(Object.keys(config).filter((key) => key.endsWith('_RPC'))).toEqual([]);
      }
    }
    for (const service of SERVICES) {
      expect(Object.keys(configOf(objects, service))).toEqual(
        expect.arrayContaining(['DATABASE_URL', 'DATABASE_PASSWORD_FILE', 'KAFKA_BROKERS', 'KAFKA_TOPIC_PARTITIONS', 'KAFKA_REPLICATION_FACTOR', 'KAFKA_MIN_INSYNC_REPLICAS']),
      );
    }
  });
});

describe('Kafka', () => {
  it('as Strimzi resources: a KRaft node pool of three and every topic with replication factor 3 and min.insync.replicas 2', () => {
    const objects = render('strimzi');
    const [kafka] = ofKind(objects, 'Kafka');
    expect(kafka.apiVersion).toBe('kafka.strimzi.io/v1');
    expect(kafka.spec.kafka.config['min.insync.replicas']).toBe(2);
    const [pool] = ofKind(objects, 'KafkaNodePool');
    expect(pool.metadata.labels?.['strimzi.io/cluster']).toBe(kafka.metadata.name);
    expect(pool.spec).toMatchObject({ replicas: 3, roles: ['controller', 'broker'] });
    const topics = ofKind(objects, 'KafkaTopic');
    expect(topics.map((topic) => topic.spec.topicName).sort()).toEqual([...TOPICS].sort());
    for (const topic of topics) {
      expect(topic.metadata.labels?.['strimzi.io/cluster']).toBe(kafka.metadata.name);
      expect(topic.spec).toMatchObject({ partitions: 12, replicas: 3, config: { 'min.insync.replicas': 2 } });
    }
    expect(configOf(objects, 'orders')).toMatchObject({ KAFKA_BROKERS: `${kafka.metadata.name}-kafka-bootstrap:9093`, KAFKA_TOPIC_PARTITIONS: '12', KAFKA_REPLICATION_FACTOR: '3', KAFKA_MIN_INSYNC_REPLICAS: '2' });
  });

  it('or an external bootstrap address, with no Strimzi resource', () => {
    const objects = render('external-kafka');
    expect(objects.filter((object) => object.apiVersion.startsWith('kafka.strimzi.io'))).toEqual([]);
    expect(configOf(objects, 'inventory').KAFKA_BROKERS).toBe('b-1.kafka.internal:9092,b-2.kafka.internal:9092,b-3.kafka.internal:9092');
    expect(configOf(objects, 'inventory').KAFKA_NAMESPACE).toBe('shop-');
  });
});

describe('the production values', () => {
  const objects = render('production');

  it('run three replicas of every workload at least, autoscaled, each with a disruption budget', () => {
    const autoscalers = ofKind(objects, 'HorizontalPodAutoscaler');
    expect(autoscalers.map(component).sort()).toEqual([...WORKLOADS].sort());
    for (const autoscaler of autoscalers) expect(autoscaler.spec.minReplicas).toBe(3);
    expect(ofKind(objects, 'PodDisruptionBudget').map(component).sort()).toEqual([...WORKLOADS].sort());
    expect(configOf(objects, 'gateway').RATE_LIMIT_REDIS_URL).toBe('rediss://ratelimit@redis-master.redis.svc:6379');
  });

  it('give the gateway its Redis password from the existing Secret, and the CA of rateLimit.caSecret', () => {
    expect(configOf(objects, 'gateway')).toMatchObject({ RATE_LIMIT_REDIS_PASSWORD_FILE: '/var/run/secrets/redis/redis-password', RATE_LIMIT_REDIS_TLS_CA_FILE: '/var/run/secrets/redis-ca/ca.crt' });
    const gateway = podOf(objects, 'gateway');
    expect(gateway.volumes).toContainEqual(expect.objectContaining({ name: 'redis-ca', secret: expect.objectContaining({ secretName: 'redis-ca' }) }));
    expect(gateway.containers[0].volumeMounts).toContainEqual({ name: 'redis-password', mountPath: '/var/run/secrets/redis', readOnly: true });
  });

  it('connect to PostgreSQL over TLS that checks the server against the CA of postgresql.caSecret', () => {
    const pods = [...ofKind(objects, 'Deployment'), ...ofKind(objects, 'Job')].map((owner) => owner.spec.template.spec);
    const databasePods = pods.filter((pod) => pod.volumes.some((volume: { name: string }) => volume.name === 'database-password'));
    expect(databasePods).toHaveLength(6); // three services and their three migrate Jobs
    for (const pod of databasePods) {
      expect(pod.volumes).toContainEqual(expect.objectContaining({ name: 'postgresql-ca', secret: expect.objectContaining({ secretName: 'postgresql-ca' }) }));
      expect(pod.containers[0].volumeMounts).toContainEqual({ name: 'postgresql-ca', mountPath: '/var/run/secrets/postgresql-ca', readOnly: true });
    }
    for (const service of SERVICES) {
      expect(new URL(configOf(objects, service).DATABASE_URL).search).toBe('?sslmode=verify-full&sslrootcert=/var/run/secrets/postgresql-ca/ca.crt');
    }
  });

  it('scrape every workload under its own job name and carry the alerts of deploy/observability unchanged', () => {
    const [monitor] = ofKind(objects, 'ServiceMonitor');
    expect(monitor.spec.jobLabel).toBe('app.kubernetes.io/component');
    expect(monitor.metadata.labels?.release).toBe('kube-prometheus-stack');
    const [rule] = ofKind(objects, 'PrometheusRule');
    const alerts = parse(fs.readFileSync(path.join(root, 'deploy/observability/alerts.yml'), 'utf8'));
    expect(rule.spec.groups).toEqual(alerts.groups);
  });
});

describe('NATS', () => {
  /** The authorization block of the rendered ConfigMap, each password (an environment variable of the NATS server) as its variable's name. */
  const authorizationOf = (objects: K8sObject[]) => {
    const map = ofKind(objects, 'ConfigMap').find((candidate) => candidate.metadata.name.endsWith('-nats-authorization'));
    const text = (map?.data?.['authorization.conf'] ?? '').replace(/^\s*#.*$/gm, '').replace(/^\s*authorization:/m, '');
    return JSON.parse(text.replace(/\busers:/, '"users":').replace(/\$([A-Z_]+)/g, '"$$$1"'));
  };
  /** The same block as libs/contracts generates it for nats-server. */
  const generated = (subjectPrefix: string, userPrefix: string) => {
    const users = NATS_IDENTITIES.map((identity) => ({ identity, user: `${userPrefix}${identity}`, password: `$PETSTORE_${identity.toUpperCase()}_NATS_PASSWORD` }));
    const config = natsServerConfig({ listen: '0.0.0.0:4222', subjectPrefix, users, tls: { certFile: 'server.pem', keyFile: 'server.key' } });
    return JSON.parse(config.replace(/^#.*$/gm, '')).authorization;
  };

  it('renders the NATS server\'s users and permissions as libs/contracts generates them, with no password', () => {
    expect(natsChartFileIsStale(root)).toBe(false);
    expect(authorizationOf(render('defaults'))).toEqual(generated('', ''));
    const shared = render('defaults', 'nats.subjectPrefix=shop.', 'nats.userPrefix=shop-');
    expect(authorizationOf(shared)).toEqual(generated('shop.', 'shop-'));
    expect(configOf(shared, 'orders').NATS_USER).toBe('shop-orders');
  });

  it.each(valueSetNames)('with the %s values, mounts in each workload its own NATS password and no other workload\'s secret', (valueSet) => {
    const objects = render(valueSet);
    for (const workload of WORKLOADS) {
      const pod = podOf(objects, workload);
      const keys = pod.volumes.flatMap((volume: { secret?: { secretName: string; items?: { key: string }[] } }) =>
        volume.secret?.secretName === 'petstore-secrets' ? (volume.secret.items ?? []).map((item) => item.key) : [],
      );
      const own = [`${workload}-nats-password`, ...(workload === 'gateway' ? ['rate-limit-redis-password'] : [`${workload}-database-password`, `${workload}-kafka-password`])];
      expect({ workload, keys: keys.filter((key: string) => !own.includes(key)) }).toEqual({ workload, keys: [] });
      expect(keys).toContain(`${workload}-nats-password`);
      expect(pod.volumes).toContainEqual(expect.objectContaining({ name: 'nats-ca', secret: expect.objectContaining({ items: [{ key: 'ca.crt', path: 'ca.crt' }] }) }));
      expect(pod.containers[0].volumeMounts).toEqual(expect.arrayContaining([
        { name: 'nats-password', mountPath: '/var/run/secrets/nats', readOnly: true },
        { name: 'nats-ca', mountPath: '/var/run/secrets/nats-ca', readOnly: true },
      ]));
      expect(configOf(objects, workload)).toMatchObject({ NATS_USER: workload, NATS_PASSWORD_FILE: '/var/run/secrets/nats/nats-password', NATS_TLS_CA_FILE: '/var/run/secrets/nats-ca/ca.crt' });
    }
  });
});

describe('values.schema.json and the chart\'s own checks', () => {
  it.each([
    ['an unknown key', ['workloads.gateway.replicaz=3'], /replicaz/],
    ['an unknown transport', ['rpc.transport=http'], /transport/],
    ['the TCP transport, which has no authentication', ['rpc.transport=tcp'], /transport/],
    ['a secret written into values', ['secrets.apiKeys=abc'], /apiKeys/],
    ['no existing secret', ['secrets.existingSecret='], /existingSecret/],
    ['TLS to PostgreSQL that checks no certificate', ['postgresql.options=sslmode=require'], /options/],
    ['NATS without the CA of its certificate', ['nats.caSecret='], /nats.caSecret/],
    ['a shared Redis without its ACL user', ['rateLimit.redisUrl=rediss://redis:6379'], /redisUrl/],
    ['a shared Redis without TLS', ['rateLimit.redisUrl=redis://ratelimit@redis:6379'], /redisUrl/],
    ['external Kafka without an address', ['kafka.external.bootstrapServers='], /allOf|bootstrapServers/],
    ['external Kafka without the CA of its brokers, which would mean no TLS', ['kafka.external.caSecret='], /caSecret/],
    ['a workload given other Kafka credentials than its own', ['workloads.orders.env.KAFKA_SASL_USERNAME=admin'], /KAFKA_SASL_USERNAME|env/],
    ['a workload given no Kafka CA', ['workloads.catalog.env.KAFKA_TLS_CA_FILE='], /KAFKA_TLS_CA_FILE|env/],
    ['a workload sent to other brokers', ['workloads.inventory.env.KAFKA_BROKERS=kafka:9092'], /KAFKA_BROKERS|env/],
    ['a Strimzi cluster with a listener of its own', ['kafka.strimzi.listeners[0].authentication=none'], /listeners/],
    ['a root security context', ['podSecurityContext.runAsNonRoot=false'], /runAsNonRoot/],
    ['a writable root file system', ['securityContext.readOnlyRootFilesystem=false'], /readOnlyRootFilesystem/],
    ['more minimum replicas than maximum', ['workloads.orders.autoscaling.minReplicas=5', 'workloads.orders.autoscaling.maxReplicas=2'], /minReplicas \(5\) is above maxReplicas \(2\)/],
    ['a min.insync.replicas above the replication factor', ['kafka.topics.minInsyncReplicas=4'], /would refuse every write/],
    ['fewer Strimzi nodes than the replication factor', ['kafka.mode=strimzi', 'kafka.strimzi.nodePool.replicas=2'], /below kafka.topics.replicationFactor/],
  ])('refuses %s at install', (_what, set, message) => {
    expect(renderError('defaults', ...set)).toMatch(message);
  });
});

describe('tracing', () => {
  it('gives every workload the collector and the sampler when an endpoint is set, and neither without one', () => {
    const on = render('production', 'tracing.otlpEndpoint=http://otel-collector.observability:4318', 'tracing.samplerRatio=0.25');
    for (const workload of ['gateway', ...SERVICES]) {
      expect(configOf(on, workload)).toMatchObject({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel-collector.observability:4318',
        OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '0.25',
      });
      expect(Object.keys(configOf(render('production'), workload)).filter((key) => key.startsWith('OTEL_'))).toEqual([]);
    }
  });

  it('keeps one new trace in ten unless told otherwise', () => {
    const on = render('production', 'tracing.otlpEndpoint=http://otel-collector.observability:4318');
    for (const workload of ['gateway', ...SERVICES]) {
      expect(configOf(on, workload)).toMatchObject({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' });
    }
  });

  it.each([
    ['a share of traces above one', 'tracing.samplerRatio=1.5', /samplerRatio/],
    ['a share of traces that is no number', 'tracing.samplerRatio=half', /samplerRatio/],
    ['a sampler the services do not know', 'tracing.sampler=sometimes', /sampler/],
  ])('refuses %s at install', (_what, set, message) => {
    expect(renderError('defaults', set)).toMatch(message);
  });
});

describe('the validators themselves', () => {
  const [deployment] = ofKind(render('defaults'), 'Deployment');
  const [topic] = ofKind(render('strimzi'), 'KafkaTopic');
  const [user] = ofKind(render('strimzi'), 'KafkaUser');

  it('refuse a built-in object of the wrong shape', () => {
    const broken = structuredClone(deployment);
    broken.spec.template.spec.containers[0].ports[0].containerPort = 'three thousand';
    expect(validate(broken).join('\n')).toMatch(/containerPort must be integer/);
  });

  it('name a field the Kubernetes API does not define', () => {
    const broken = structuredClone(deployment);
    broken.spec.template.spec.containers[0].livenessProbe.httpGet.paht = '/health/live';
    expect(unknownFields([broken]).join('\n')).toMatch(/Deployment shop-\w+: .*'"paht"' does not exist/);
  });

  it('refuse a custom resource with a field its CRD does not define, or a wrong type', () => {
    expect(validate({ ...topic, spec: { ...topic.spec, replicationFactor: 3 } }).join('\n')).toMatch(/additionalProperty.*replicationFactor/);
    expect(validate({ ...topic, spec: { ...topic.spec, partitions: 'twelve' } }).join('\n')).toMatch(/partitions must be integer/);
  });

  it('refuse a KafkaUser whose ACL names an operation or authentication Strimzi does not know', () => {
    const broken = structuredClone(user);
    broken.spec.authorization.acls[0].operations = ['Produce'];
    expect(validate(broken).join('\n')).toMatch(/operations\/0 must be equal to one of the allowed values/);
    expect(validate({ ...user, spec: { ...user.spec, authentication: { type: 'plain' } } }).join('\n')).toMatch(/authentication\/type must be equal to one of the allowed values/);
  });

  it('know no schema for a kind they were not given', () => {
    expect(validate({ ...topic, apiVersion: 'kafka.strimzi.io/v1beta2' })).toEqual([expect.stringMatching(/no schema/)]);
  });
});

describe('the CRDs kept in tools/chart-check/crds', () => {
  const shared = path.join(root, '../shared/k8s-crds');
  (fs.existsSync(shared) ? it : it.skip)('are the files of ../shared/k8s-crds, byte for byte', () => {
    for (const file of CRD_FILES) expect(fs.readFileSync(path.join(crdDir, file)).equals(fs.readFileSync(path.join(shared, file)))).toBe(true);
  });
});
