// What `npm run chaos` does to the scaled stack (tools/stack's cluster: three brokers, two
// replicas of every tier, HAProxy in front of the gateways). Same shape as scenarios.ts; a
// scenario with `zeroFailures` promises that no client sees a failure, so every answer of the
// load that is not 2xx (orders and reads, through HAProxy) counts against it.
import { randomUUID } from 'node:crypto';
import type { kafkajs } from '@petstore/kafka';
import { clusterKafkaAsync, clusterLayout, waitForBalancer } from '@petstore/stack';
import { sleep } from '@petstore/backoff';
import { placedCount, secondsUntilDecided } from './load';
import type { Scenario, ScenarioContext } from './scenario';
import { whileLeadersMove } from './topics';

export type ClusterLayout = ReturnType<typeof clusterLayout>;
type ClusterContext = ScenarioContext<ClusterLayout>;

/** The scenario's own topics: every partition the stack reads and writes. */
const TOPICS = ['orders.order.v1', 'inventory.stock.v1', 'inventory.pet-status.v1', 'catalog.pet.v1'];

/** The broker that leads the partitions holding the most messages of this run (the busiest ones). */
function busiestLeader(kafka: kafkajs.Kafka, namespace: string): Promise<{ node: number; messages: number }> {
  return whileLeadersMove(() => readBusiestLeader(kafka, namespace));
}

async function readBusiestLeader(kafka: kafkajs.Kafka, namespace: string): Promise<{ node: number; messages: number }> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const topics = TOPICS.map((topic) => `${namespace}${topic}`);
    const { topics: metadata } = await admin.fetchTopicMetadata({ topics });
    const load = new Map<number, number>();
    for (const topic of metadata) {
      const offsets = await admin.fetchTopicOffsets(topic.name);
      for (const partition of topic.partitions) {
        const high = Number(offsets.find((o) => o.partition === partition.partitionId)?.high ?? 0);
        load.set(partition.leader, (load.get(partition.leader) ?? 0) + high);
      }
    }
    const [leader, messages] = [...load].sort((a, b) => b[1] - a[1])[0];
    return { node: leader, messages };
  } finally {
    await admin.disconnect();
  }
}

/** Resolves once every partition of the run's topics has all three replicas in sync again. */
async function fullyReplicated(kafka: kafkajs.Kafka, namespace: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const admin = kafka.admin();
    try {
      await admin.connect();
      const { topics } = await admin.fetchTopicMetadata({ topics: TOPICS.map((topic) => `${namespace}${topic}`) });
      if (topics.every((topic) => topic.partitions.every((p) => p.isr.length === 3 && p.leader >= 0))) return;
    } catch {
      // a broker is still electing or starting: ask again
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
    if (Date.now() > deadline) throw new Error(`partitions not fully replicated ${timeoutMs / 1000} s after the broker returned`);
    await sleep(500);
  }
}

/** SIGTERM to each replica in turn, the next one only once the new process is ready (and, for a gateway, back behind HAProxy). */
async function rollingRestart({ stack, layout }: ClusterContext) {
  const order = ['gateway', 'catalog', 'orders', 'inventory'];
  const names = [...layout.gateways, ...layout.services].sort((a, b) => order.indexOf(a.split('-')[0]) - order.indexOf(b.split('-')[0]));
  for (const name of names) {
    await stack.signal(name, 'SIGTERM');
    await stack.start(name);
    if (name.startsWith('gateway')) await waitForBalancer(layout);
    await sleep(1000);
  }
  return { note: `restarted ${names.join(', ')}` };
}

/** Starts `node` again and waits until every partition has its three replicas in sync, and 2 s more. */
async function rejoin({ kafka, namespace, layout }: ClusterContext, node: number): Promise<void> {
  await clusterKafkaAsync('start-node', layout.kafka, node);
  await fullyReplicated(kafka, namespace);
  await sleep(2000);
}

async function killBusiestBroker(context: ClusterContext, times: number) {
  const { kafka, namespace, layout, waitReady } = context;
  const killed = [];
  for (let i = 0; i < times; i += 1) {
    const { node, messages } = await busiestLeader(kafka, namespace);
    killed.push(`node ${node} (leading ${messages} messages)`);
    await clusterKafkaAsync('kill-node', layout.kafka, node);
    // Down long enough for the controller to fence it (6 s session) and move its leaderships.
    await sleep(8000);
    await rejoin(context, node);
  }
  await waitReady();
  return { note: `killed ${killed.join(', ')}` };
}

/**
 * A broker upgrade: each node stopped (SIGTERM) and started again in turn, the next one only once
 * every partition is back in sync. A stopping broker hands its leaderships over first, so a send
 * in flight meets the new leaders at once: on brokers that may have answered the rest of its batch.
 */
async function restartBrokersInTurn(context: ClusterContext, nodes = [1, 2, 3]) {
  for (const node of nodes) {
    await clusterKafkaAsync('stop-node', context.layout.kafka, node);
    await rejoin(context, node);
  }
  await context.waitReady();
  return { note: `stopped and started node${nodes.length > 1 ? 's' : ''} ${nodes.join(', ')} in turn` };
}

/** Two brokers killed, the one leading the most spared; one back after 20 s, then the other. */
async function twoBrokersDown({ kafka, namespace, layout, api, load, waitReady }: ClusterContext) {
  const { node: spared } = await busiestLeader(kafka, namespace);
  const down = [1, 2, 3].filter((n) => n !== spared);
  for (const node of down) await clusterKafkaAsync('kill-node', layout.kafka, node);
  await sleep(20_000);
  const placedDuringOutage = await placedCount(api, load.pets);
  await clusterKafkaAsync('start-node', layout.kafka, down[0]);
  const resumedIn = await secondsUntilDecided(api, load.pets, 30_000);
  await clusterKafkaAsync('start-node', layout.kafka, down[1]);
  await fullyReplicated(kafka, namespace);
  await waitReady();
  return {
    note:
      `nodes ${down.join(' and ')} down, node ${spared} left; ${placedDuringOutage} order(s) placed and waiting after 20 s; ` +
      (resumedIn === null ? 'not all decided within 30 s of one broker returning' : `all decided ${resumedIn} s after one broker returned`),
  };
}

/**
 * Orders placed with `Prefer: wait` while decisions are held back (both inventory replicas
 * paused), then the orders replica holding the waits killed. Every waited order, resolved with
 * its key, must agree with what the client was told.
 */
async function killWhileWaiting({ stack, api, load, seedPets }: ClusterContext) {
  const pets = await seedPets(4, [50, 50, 50, 1]);
  for (const name of ['inventory-1', 'inventory-2']) await stack.signal(name, 'SIGSTOP');
  const waits = Array.from({ length: 16 }, (_, i) => {
    const key = randomUUID();
    const body = { petId: pets[i % pets.length].id, quantity: 1 };
    // The client waits longer than the gateway does (the wait, then its upstream timeout), so every answer is the stack's own.
    return api.call('POST', '/v1/store/orders', body, { 'idempotency-key': key, prefer: 'wait=5' }, { timeoutMs: 30_000 }).then((answer) => ({ key, body, answer }));
  });
  await sleep(1500);
  await stack.signal('orders-1', 'SIGKILL');
  await sleep(500);
  for (const name of ['inventory-1', 'inventory-2']) await stack.signal(name, 'SIGCONT');
  const answers = await Promise.all(waits);
  await stack.start('orders-1');
  const statuses: Record<string, number> = {};
  let wrong = 0;
  let unresolved = 0;
  for (const { key, body, answer } of answers) {
    const label = answer.status === 0 ? 'no answer' : String(answer.status);
    statuses[label] = (statuses[label] ?? 0) + 1;
    let final;
    for (let i = 0; i < 40 && !(final?.status === 201 && final.body.status !== 'placed'); i += 1) {
      final = await api.call('POST', '/v1/store/orders', body, { 'idempotency-key': key, prefer: 'wait=5' });
      if (final.status !== 201) await sleep(500);
    }
    if (final?.status === 201) load.accepted.set(final.body.id, body); // judged with the load's orders
    if (final?.status !== 201) unresolved += 1;
    else if (answer.status === 201 && answer.body.status !== 'placed' && answer.body.status !== final.body.status) wrong += 1;
    // Anything else than 201, 503 (not carried out), 504 or a cut connection (outcome unknown) is wrong.
    else if (![201, 503, 504, 0].includes(answer.status)) wrong += 1;
  }
  load.pets.push(...pets); // their stock and decisions are checked with the load's pets
  const summary = Object.entries(statuses).map(([status, count]) => `${status}×${count}`).join(' ');
  const failures = [];
  if (wrong > 0) failures.push(`${wrong} waited answer(s) contradicting the order`);
  if (unresolved > 0) failures.push(`${unresolved} waited order(s) whose outcome could not be resolved`);
  return { note: `16 waited orders answered ${summary}; each resolved with its key`, failures };
}

export const CLUSTER_SCENARIOS: Scenario<ClusterLayout>[] = [
  {
    name: 'rolling restart of every replica (gateways, catalog, orders, inventory), one at a time',
    short: true,
    zeroFailures: true,
    guarantees:
      'a stopping process turns unready at once, takes no new work and finishes what it holds; HAProxy and the RPC transport send new requests to the other replica; consumers commit and leave their group',
    fault: rollingRestart,
  },
  {
    name: 'broker leading the busiest partitions killed (-9) three times',
    guarantees:
      'replication factor 3, min.insync.replicas 2, acks=all: an acknowledged event is on two brokers; the controller moves leadership within the 6 s session; producers and consumers follow the new leaders',
    fault: (context) => killBusiestBroker(context, 3),
    short: true,
    shortName: 'broker leading the busiest partitions killed (-9) once',
    shortFault: (context) => killBusiestBroker(context, 1),
  },
  {
    name: 'brokers restarted one at a time (SIGTERM), as an upgrade does',
    short: true,
    zeroFailures: true,
    guarantees:
      'a stopping broker hands its leaderships to the others; the outbox relays re-send a whole batch that any broker failed (kafkajs retries no batch), so every event reaches its partition and consumers drop the copies',
    fault: (context) => restartBrokersInTurn(context),
    shortName: 'broker leading the busiest partitions restarted (SIGTERM) once',
    shortFault: async (context) => restartBrokersInTurn(context, [(await busiestLeader(context.kafka, context.namespace)).node]),
  },
  {
    name: 'two of three brokers down 20 s (kill -9), then one back, then the other',
    guarantees:
      'with one broker no write reaches min.insync.replicas: events wait in the outboxes (orders are still accepted); with two back the relays publish and the saga resumes',
    fault: twoBrokersDown,
  },
  {
    name: 'inventory scaled 2 → 4 → 2 under load',
    zeroFailures: true,
    guarantees: 'partitions move between the members of one group; a new replica takes requests once ready, a leaving one drains first',
    fault: async ({ stack, recovered }) => {
      await Promise.all([stack.start('inventory-3'), stack.start('inventory-4')]);
      await sleep(6000);
      await Promise.all([stack.signal('inventory-3', 'SIGTERM'), stack.signal('inventory-4', 'SIGTERM')]);
      recovered();
      await sleep(2000);
    },
  },
  {
    name: 'orders replica killed (-9) while it holds Prefer: wait answers',
    guarantees:
      'a waiting client whose replica dies gets 504 (outcome unknown) and resolves it with its Idempotency-Key, or gets its decision; an answer never contradicts the order; the saga does not depend on the waiting replica',
    fault: killWhileWaiting,
  },
];
