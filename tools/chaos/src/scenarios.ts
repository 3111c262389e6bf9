// What `npm run chaos` does to the single stack (one process per tier, one broker) while orders
// flow. The shape of a scenario, and what "after recovery" means, are scenario.ts's.
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import { kafkaAsync } from '@petstore/stack';
import { sleep } from '@petstore/backoff';
import type { Fault, FaultOutcome, Scenario, ScenarioContext } from './scenario';
import { CHAOS_KAFKA, brokerPid, run, stackLockDescriptors } from './processes';
import { envelopeOf, readTopic } from './topics';
import { placedCount, secondsUntilDecided } from './load';

const STACK_LOCK = '/tmp/petstore-stack.lock';

function killRepeatedly(name: string, times = 5): Fault {
  return async ({ stack }) => {
    for (let i = 0; i < times; i += 1) {
      if (i > 0) await sleep(2000);
      await stack.signal(name, 'SIGKILL');
      await sleep(1000);
      await stack.start(name);
    }
  };
}

async function killBroker({ waitReady }: ScenarioContext, times: number): Promise<void> {
  for (let i = 0; i < times; i += 1) {
    if (i > 0) await sleep(3000);
    process.kill(brokerPid(), 'SIGKILL');
    await sleep(500);
    await kafkaAsync('start', CHAOS_KAFKA);
  }
  await waitReady();
}

async function pauseBroker({ waitReady }: ScenarioContext, seconds: number): Promise<void> {
  const pid = brokerPid();
  process.kill(pid, 'SIGSTOP');
  try {
    await sleep(seconds * 1000);
  } finally {
    process.kill(pid, 'SIGCONT');
  }
  await waitReady();
}

/**
 * Orders and inventory killed and started again while the broker is down: each starts without
 * Kafka, takes placements into its outbox, reports not ready and keeps trying to start its
 * messaging, and must relay and consume once the broker is back.
 */
async function restartedWithoutBroker({ stack, api, load, waitReady }: ScenarioContext): Promise<FaultOutcome> {
  const services = ['orders', 'inventory'];
  process.kill(brokerPid(), 'SIGKILL');
  for (const service of services) await stack.signal(service, 'SIGKILL');
  await sleep(1000);
  for (const service of services) stack.launch(service);
  // Long enough for the services' start attempts to back off to their longest wait.
  await sleep(30_000);
  const placedDuringOutage = await placedCount(api, load.pets);
  await kafkaAsync('start', CHAOS_KAFKA);
  const decidedIn = await secondsUntilDecided(api, load.pets, 30_000);
  await waitReady();
  return {
    note:
      `broker down 31 s, orders and inventory started again 1 s into it; ${placedDuringOutage} order(s) placed and waiting; ` +
      (decidedIn === null ? 'not all decided within 30 s of the broker returning' : `all decided ${decidedIn} s after the broker returned`),
  };
}

/**
 * Restarts `service` with a crash injected at `point` (FAULT_CRASH_POINT, see COMMON shapes in
 * libs/messaging), waits for the process to kill itself, then starts it plainly. A build without
 * the fault point does not crash: the scenario says so instead of pretending.
 */
function crashAt(service: string, point: string, after: number): Fault {
  return async ({ stack }) => {
    await stack.signal(service, 'SIGTERM');
    // It may reach the fault point before it reports ready: a start that ends in the crash is expected.
    await stack.start(service, { FAULT_CRASH_POINT: point, FAULT_CRASH_AFTER: String(after) }).catch(() => undefined);
    const ended = await stack.exitWithin(service, 20_000);
    if (ended !== 'SIGKILL') await stack.signal(service, 'SIGTERM');
    await sleep(1000);
    await stack.start(service);
    return ended === 'SIGKILL'
      ? { note: `${service} killed itself at ${point} (occurrence ${after})` }
      : { unavailable: `no crash at ${point} within 20 s: this build does not implement FAULT_CRASH_POINT` };
  };
}

const KILLED_GUARANTEES: Record<string, string> = {
  catalog: 'state and outbox rows commit together; pet events wait in the outbox; other services keep serving',
  orders: 'an order and its OrderPlaced commit in one transaction; the relay publishes what is left at restart; Idempotency-Key makes a retried POST safe',
  inventory:
    'a reservation and the consumer position (source, sequence) it advances commit together; offsets are committed after the commit, so a redelivery is deduplicated; the 3 s session hands partitions over',
  gateway: 'the gateway holds no state: a request cut by the kill has an unknown outcome, resolved by retrying with its Idempotency-Key',
};

export const SCENARIOS: Scenario[] = [
  {
    name: 'steady load, no fault',
    short: true,
    guarantees: 'the control: the saga decides every order once; stock is exact',
    fault: () => sleep(8000),
  },
  ...['catalog', 'orders', 'inventory', 'gateway'].map((service) => ({
    name: `${service} killed (-9) five times, restarted 1 s later`,
    short: service === 'inventory',
    guarantees: KILLED_GUARANTEES[service],
    fault: killRepeatedly(service),
    shortName: `${service} killed (-9) twice, restarted 1 s later`,
    shortFault: killRepeatedly(service, 2),
  })),
  {
    name: 'broker killed (-9) five times',
    guarantees:
      'outbox rows stay until Kafka acknowledged their whole batch (acks=all; a failed batch is re-sent, consumers drop the copies); consumers restart and resume from committed offsets',
    fault: (context) => killBroker(context, 5),
  },
  {
    name: 'broker paused (SIGSTOP) 10 s',
    short: true,
    guarantees: 'a stalled broker only delays: the relay retries with backoff, placement needs no broker, consumers rejoin',
    fault: (context) => pauseBroker(context, 10),
    shortName: 'broker paused (SIGSTOP) 5 s',
    shortFault: (context) => pauseBroker(context, 5),
  },
  {
    name: 'orders and inventory restarted while the broker is down (kill -9), broker back 31 s later',
    guarantees:
      'a service starts without Kafka: placements wait in the outbox, readiness says not ready, messaging retries its start at least every 2 s; once the broker is back the relays publish and the consumers join',
    fault: restartedWithoutBroker,
  },
  {
    name: 'PostgreSQL restarted',
    guarantees: 'an unreachable database is 503 (not carried out, safe to retry); transactions roll back whole; handlers retry',
    fault: async ({ waitReady, postgresCluster }) => {
      const restart = ['pg_ctlcluster', '--skip-systemctl-redirect', postgresCluster, 'main', 'restart'];
      // The cluster is shared: the restart runs under the machine's stack lock (held already when
      // chaos runs under it). The restarted server must not inherit the lock's descriptor, or it
      // holds the lock for as long as it runs: `flock -o` closes its own, and a descriptor this
      // process inherited is closed by the shell before it runs the restart.
      const held = stackLockDescriptors(STACK_LOCK);
      const command =
        held.length > 0
          ? ['sh', '-c', `exec ${held.map((fd) => `${fd}>&-`).join(' ')}; exec "$@"`, 'sh', ...restart]
          : ['flock', '-o', '-w', '120', STACK_LOCK, ...restart];
      const result = await run(command[0], command.slice(1));
      if (result.code !== 0) throw new Error(`restarting PostgreSQL failed: ${result.output}`);
      await waitReady();
    },
  },
  {
    name: 'relay killed between publishing a batch and removing it from the outbox (orders)',
    short: true,
    guarantees:
      'at-least-once relay: the rows are published again at restart with the sequence numbers they were claimed with; consumers drop what their stored position already covers',
    fault: crashAt('orders', 'relay.after-publish', 5),
    duplicatesOn: 'orders.order.v1',
  },
  {
    name: 'consumer killed between its commit and its offset commit (inventory)',
    short: true,
    guarantees: 'the redelivered batch is at or below the consumer position committed with its effects and changes nothing',
    fault: crashAt('inventory', 'consumer.after-commit', 5),
  },
  {
    name: 'inventory replicas joining and leaving mid-load',
    guarantees: 'partitions move between members of one group; a partition is handled by one member at a time, in order',
    fault: async ({ stack, recovered }) => {
      stack.defineReplica('inventory-2', 10);
      stack.defineReplica('inventory-3', 20);
      await stack.start('inventory-2');
      await sleep(4000);
      await stack.start('inventory-3');
      await sleep(4000);
      await stack.signal('inventory-2', 'SIGTERM');
      await sleep(4000);
      await stack.signal('inventory-3', 'SIGKILL');
      recovered(); // nothing to restart: the original member takes the partitions back
      await sleep(2000);
    },
  },
  {
    name: 'catalog down while just-created pets are ordered',
    guarantees: 'orders answers 503 for a pet it cannot confirm; inventory retries its catalog lookup without holding locks, so no order stays placed',
    fault: async ({ stack, load, seedPets }) => {
      const fresh = await seedPets(4, [30, 30, null, null]); // two stocked, two never stocked
      await stack.signal('catalog', 'SIGKILL');
      load.pets.push(...fresh);
      await sleep(12_000);
      await stack.start('catalog');
      return { note: `${fresh.length} pets created just before the kill; catalog down 12 s` };
    },
  },
  {
    name: 'poison event on orders.order.v1',
    short: true,
    guarantees: 'an event no retry can fix goes to the dead-letter topic at once; its partition moves on',
    fault: async ({ produce, namespace, load, poisoned, recovered }) => {
      const eventId = randomUUID();
      const key = String(load.pets[0].id);
      await produce(`${namespace}orders.order.v1`, key, {
        eventId,
        type: 'OrderPlaced',
        schemaVersion: 1,
        occurredAt: new Date().toISOString(),
        producer: 'chaos',
        correlationId: eventId,
        causationId: null,
        key,
        payload: { orderId: 'not-a-number', petId: Number(key), quantity: -1 },
      });
      poisoned.add(eventId);
      recovered(); // nothing to repair; orders go on to the same partition behind it
      await sleep(5000);
      return { note: `poison event ${eventId} on the partition of pet ${key}` };
    },
  },
  {
    name: 'forged decisions on inventory.stock.v1: a publication number far ahead, a foreign producer',
    short: true,
    guarantees:
      'a consumer refuses an event from a producer that does not own its topic, and a publication number over a million beyond what it applied from that outbox: both go to the dead-letter topic, counted, and no later decision is dropped',
    fault: forgeDecisions,
  },
];

/**
 * Writes two forged copies of the scenario's last StockReserved back to its partition, as a tool
 * holding inventory's credentials could: one numbered far ahead of anything inventory published
 * (before the consumers bounded the numbers, every later decision on that partition was dropped
 * as a copy), one in orders' name. Both must be refused, and counted by orders.
 */
async function forgeDecisions({ kafka, namespace, load, produce, poisoned, recovered, stack }: ScenarioContext): Promise<FaultOutcome> {
  const topic = `${namespace}inventory.stock.v1`;
  const pets = new Set<unknown>(load.pets.map((pet) => pet.id));
  let last;
  for (const deadline = Date.now() + 15_000; !last && Date.now() < deadline; await sleep(500)) {
    last = (await readTopic(kafka, topic))
      .map((message) => ({ message, envelope: envelopeOf(message) }))
      .filter(({ envelope }) => envelope?.type === 'StockReserved' && pets.has(envelope.payload?.petId))
      .at(-1);
  }
  if (!last?.envelope) throw new Error('no StockReserved of this scenario on the topic within 15 s');
  const { message, envelope } = last;
  const headers = Object.fromEntries(Object.entries(message.headers ?? {}).map(([name, value]) => [name, String(value)]));
  const farAhead = { ...envelope, eventId: randomUUID() };
  const foreign = { ...envelope, eventId: randomUUID(), producer: 'orders' };
  await produce(topic, message.key, farAhead, { partition: message.partition, headers: { ...headers, 'outbox-seq': '900000000000000' } });
  await produce(topic, message.key, foreign, { partition: message.partition });
  poisoned.add(farAhead.eventId);
  poisoned.add(foreign.eventId);
  recovered(); // nothing to repair: the orders go on to the same partition behind them
  await sleep(8000);

  const metrics = await fetch(`${stack.urlOf('orders')}/metrics`).then((response) => response.text());
  const refusedFor = (reason: string) =>
    [...metrics.matchAll(new RegExp(`^petstore_consumer_refused_total\\{[^}]*reason="${reason}"[^}]*\\} (\\d+)`, 'gm'))].reduce((sum, match) => sum + Number(match[1]), 0);
  const refused = { farAhead: refusedFor('implausible-publication-number'), foreign: refusedFor('foreign-producer') };
  const failures = [];
  if (refused.farAhead < 1) failures.push('orders counted no refused publication number');
  if (refused.foreign < 1) failures.push('orders counted no refused foreign producer');
  return {
    note: `copies of decision ${envelope.eventId} on partition ${message.partition} (pet ${message.key}) with outbox-seq 900000000000000 and with producer 'orders'; orders counted ${refused.farAhead} and ${refused.foreign} refused`,
    failures,
  };
}

/** The major version of this machine's PostgreSQL cluster (`/etc/postgresql/<version>`). */
export function postgresCluster(): string {
  return fs.readdirSync('/etc/postgresql')[0];
}
