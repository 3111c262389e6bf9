/**
 * The chart's NetworkPolicies admit exactly the flows of the design and nothing else: every
 * pair of endpoints (the chart's pods, and stand-ins for everything around them: clients, the
 * scraper, DNS, PostgreSQL, Kafka, NATS, Redis, an unrelated pod here and one elsewhere) on every
 * port of interest, compared with the list below, for each value set.
 */
import { admittedFlows, type Endpoint, type Flow, type Port } from './network-flows';
import { NAMESPACE, RELEASE, render, valueSetNames, type K8sObject, type ValueSet } from './render';

const SERVICES = ['catalog', 'orders', 'inventory'] as const;
const HTTP_PORTS = { gateway: 3000, catalog: 3001, orders: 3002, inventory: 3003 };

/** Around the chart, as the example value sets place it (namespaces, labels, address ranges). */
function outside(kafkaCluster: string): Endpoint[] {
  return [
    { name: 'client', namespace: 'ingress-nginx', labels: { app: 'ingress-nginx' }, ip: '10.1.0.10' },
    { name: 'scraper', namespace: 'monitoring', labels: { 'app.kubernetes.io/name': 'prometheus' }, ip: '10.1.0.11' },
    { name: 'dns', namespace: 'kube-system', labels: { 'k8s-app': 'kube-dns' }, ip: '10.1.0.2' },
    { name: 'postgres', namespace: 'databases', labels: { app: 'postgresql' }, ip: '10.30.0.5' },
    { name: 'kafka', namespace: NAMESPACE, labels: { 'strimzi.io/cluster': kafkaCluster, 'strimzi.io/broker-role': 'true' }, ip: '10.20.0.7' },
    { name: 'nats', namespace: 'nats', labels: { app: 'nats' }, ip: '10.40.0.5' },
    { name: 'redis', namespace: 'redis', labels: { app: 'redis' }, ip: '10.50.0.5' },
    { name: 'neighbour', namespace: NAMESPACE, labels: { app: 'neighbour' }, ip: '10.1.0.30' },
    { name: 'stranger', namespace: 'elsewhere', labels: { app: 'stranger' }, ip: '192.168.7.7' },
  ];
}

/** The chart's pods as its Deployments and hook Jobs (migrations, kafka-provision) would create them. */
function chartPods(objects: K8sObject[]): Endpoint[] {
  const pods: Endpoint[] = [];
  for (const object of objects.filter((candidate) => candidate.kind === 'Deployment' || candidate.kind === 'Job')) {
    const template = object.spec.template;
    const labels = template.metadata.labels as Record<string, string>;
    const name = labels['app.kubernetes.io/component'];
    if (pods.some((pod) => pod.name === name)) continue;
    const namedPorts = Object.fromEntries(
      template.spec.containers.flatMap((container: { ports?: { name: string; containerPort: number }[] }) =>
        (container.ports ?? []).map((port) => [port.name, port.containerPort]),
      ),
    );
    pods.push({ name, namespace: NAMESPACE, labels, ip: `10.0.0.${pods.length + 10}`, namedPorts });
  }
  return pods;
}

const PORTS: Port[] = [
  ...[3000, 9464, 3001, 3002, 3003, 4001, 4002, 4003, 5432, 9092, 9093, 4222, 6379, 8080].map((port) => ({ port, protocol: 'TCP' as const })),
  { port: 53, protocol: 'UDP' },
  { port: 53, protocol: 'TCP' },
];

/** The design's flows for one value set: `anyone` stands for every endpoint outside the chart. */
function expectedFlows(valueSet: ValueSet, everyoneOutside: string[]): Set<Flow> {
  const production = valueSet === 'production';
  const externalKafka = valueSet === 'external-kafka';
  const strimzi = valueSet === 'production' || valueSet === 'strimzi';
  const flows = new Set<Flow>();
  const add = (sources: readonly string[], destinations: readonly string[], port: number, protocol: 'TCP' | 'UDP' = 'TCP') => {
    for (const source of sources) for (const destination of destinations) flows.add(`${source} -> ${destination}:${port}/${protocol}`);
  };
  // With external Kafka, the kafka-provision Job creates the topics and ACLs before the release.
  const pods = ['gateway', ...SERVICES, 'migrate', ...(strimzi ? [] : ['kafka-provision'])];
  // Every pod resolves names.
  add(pods, ['dns'], 53, 'UDP');
  add(pods, ['dns'], 53, 'TCP');
  // Clients → gateway: anyone, unless the value set names the ingress controller's namespace.
  add(production ? ['client'] : everyoneOutside, ['gateway'], HTTP_PORTS.gateway);
  // The scraper → every metrics port.
  add(['scraper'], ['gateway'], 9464);
  for (const service of SERVICES) add(['scraper'], [service], HTTP_PORTS[service]);
  // Gateway → services, and orders and inventory → the catalog: through NATS.
  add(['gateway', ...SERVICES], production ? ['nats'] : everyoneOutside, 4222);
  // The shared rate limit.
  if (production) add(['gateway'], ['redis'], 6379);
  // Each service → its database (the migration Jobs too) and Kafka.
  add([...SERVICES, 'migrate'], production ? ['postgres'] : everyoneOutside, 5432);
  // Strimzi's client listener (TLS + SCRAM) is 9093; an external cluster's is kafka.external.port.
  if (strimzi) add(SERVICES, ['kafka'], 9093);
  else add([...SERVICES, 'kafka-provision'], externalKafka ? ['kafka'] : everyoneOutside, 9092);
  return flows;
}

describe.each(valueSetNames)('the network policies of the %s values', (valueSet) => {
  const objects = render(valueSet);
  const policies = objects.filter((object) => object.kind === 'NetworkPolicy');
  const pods = chartPods(objects);
  const cluster = valueSet === 'strimzi' ? 'petstore-kafka' : `${RELEASE}-kafka`;
  const around = outside(cluster);

  it('deny by default: one policy selects every pod of the release in both directions, with no rule', () => {
    const denying = policies.filter((policy) => !policy.spec.ingress && !policy.spec.egress);
    expect(denying).toHaveLength(1);
    expect(denying[0].spec.policyTypes).toEqual(['Ingress', 'Egress']);
    for (const pod of pods) expect(pod.labels).toMatchObject(denying[0].spec.podSelector.matchLabels);
  });

  it('admit exactly the flows of the design and nothing else', () => {
    const subjects = new Set(pods.map((pod) => pod.name));
    const admitted = admittedFlows(policies, [...pods, ...around], subjects, PORTS, NAMESPACE);
    const expected = expectedFlows(valueSet, around.map((endpoint) => endpoint.name));
    expect([...admitted].filter((flow) => !expected.has(flow)).sort()).toEqual([]);
    expect([...expected].filter((flow) => !admitted.has(flow)).sort()).toEqual([]);
  });
});

describe('with tracing on', () => {
  it('lets every workload reach the collector\'s port, and only that more', () => {
    const objects = render('production', 'tracing.otlpEndpoint=http://otel-collector.observability:4318');
    const policies = objects.filter((object) => object.kind === 'NetworkPolicy');
    const pods = chartPods(objects);
    const collector: Endpoint = { name: 'collector', namespace: 'observability', labels: { app: 'otel-collector' }, ip: '10.60.0.5' };
    const around = [...outside(`${RELEASE}-kafka`), collector];
    const subjects = new Set(pods.map((pod) => pod.name));
    const withTracing = admittedFlows(policies, [...pods, ...around], subjects, [...PORTS, { port: 4318, protocol: 'TCP' }], NAMESPACE);
    const expected = expectedFlows('production', around.map((endpoint) => endpoint.name));
    for (const pod of ['gateway', ...SERVICES]) for (const endpoint of around) expected.add(`${pod} -> ${endpoint.name}:4318/TCP`);
    expect([...withTracing].filter((flow) => !expected.has(flow)).sort()).toEqual([]);
    expect([...expected].filter((flow) => !withTracing.has(flow)).sort()).toEqual([]);
  });
});

describe('without network policies', () => {
  it('renders none when networkPolicy.enabled is false', () => {
    expect(render('defaults', 'networkPolicy.enabled=false').filter((object) => object.kind === 'NetworkPolicy')).toEqual([]);
  });
});
