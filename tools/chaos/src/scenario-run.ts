// One stack's scenarios in turn: each on fresh pets under the order load, then everything the
// invariants need collected after recovery, and judged.
import type { kafkajs } from '@petstore/kafka';
import { sleep } from '@petstore/backoff';
import { judge, SETTLE_SECONDS, type Order } from './invariants';
import { Api, OrderLoad, type StockedPet } from './load';
import type { ChaosOptions } from './options';
import { type ChaosLayout, type ChaosStack } from './processes';
import { describe, seconds, type ScenarioResult } from './report';
import { chooseScenarios, faultOf, type FaultOutcome, type Scenario, type ScenarioContext } from './scenario';
import { postgresCluster } from './scenarios';
import { chaosKafka, consumerLag, deadLetters, decisionsOf, republishedOn } from './topics';

/** Stock per pet: one pet runs out, so some orders are rejected. */
export const PETS = [400, 400, 400, 400, 400, 5];

export const log = (message: string): void => console.log(`[chaos] ${message}`);

/** Dead letters already judged by an earlier scenario of the run, and the poison events already found there. */
export class DeadLetterBook {
  readonly seen = new Set<string>();
  readonly deadLettered = new Set<string>();
}

export interface StackUnderTest<L extends ChaosLayout> {
  chaosStack: ChaosStack;
  layout: L & { kafkaSecrets?: string };
  namespace: string;
  brokers: string;
  /** Resolves once every process of the stack is ready again. */
  waitReady: () => Promise<void>;
  /** Brings back whatever a fault left broken or added, then waits until ready. */
  restore: () => Promise<void>;
  /** With each order, also read the pet and its stock. */
  reads?: boolean;
}

export async function runScenarios<L extends ChaosLayout>(
  scenarios: Scenario<L>[],
  target: StackUnderTest<L>,
  options: ChaosOptions & { apiKey: string; letters: DeadLetterBook },
): Promise<ScenarioResult[]> {
  const { chaosStack, layout, namespace } = target;
  const api = new Api(layout.urls.gateway, options.apiKey);
  const kafka = chaosKafka(target.brokers, layout.kafkaSecrets);
  const producer = kafka.producer();
  const poisoned = new Set<string>();
  const results: ScenarioResult[] = [];
  try {
    const category = await api.must('POST', '/v1/categories', { name: `Chaos ${namespace}`, description: 'chaos run' }, [201]);
    let petNumber = 0;
    const seedPets = async (count: number, stocks: (number | null)[]): Promise<StockedPet[]> => {
      const pets = [];
      for (let i = 0; i < count; i += 1) {
        const pet = await api.must('POST', '/v1/pets', { name: `Chaos pet ${++petNumber}`, categoryId: category.id }, [201]);
        const stock = stocks[i] ?? null;
        if (stock !== null) await api.must('PUT', `/v1/store/inventory/${pet.id}`, { quantity: stock }, [200]);
        pets.push({ id: pet.id, stock: stock ?? 0 });
      }
      return pets;
    };
    const produce: ScenarioContext['produce'] = async (topic, key, envelope, { partition, headers = {} } = {}) => {
      await producer.connect();
      await producer.send({
        topic,
        acks: -1,
        messages: [{ key, partition, value: JSON.stringify(envelope), headers: { ...headers, 'event-type': String(envelope.type), 'event-id': String(envelope.eventId) } }],
      });
    };

    for (const scenario of chooseScenarios(scenarios, options)) {
      log(`── ${scenario.name}`);
      const pets = await seedPets(PETS.length, PETS);
      const load = new OrderLoad(api, pets, { rate: options.rate, reads: target.reads });
      let recoveredAt: number | undefined;
      const recovered = () => (recoveredAt ??= Date.now());
      const context: ScenarioContext<L> = { stack: chaosStack, layout, api, kafka, load, namespace, waitReady: target.waitReady, seedPets, produce, poisoned, recovered, postgresCluster: postgresCluster() };
      load.start();
      await sleep(2000);
      let outcome: FaultOutcome = {};
      let faultError: unknown;
      try {
        outcome = (await faultOf(scenario, options.short)(context)) ?? {};
      } catch (error) {
        faultError = error;
      }
      const recoveredMoment = recovered();
      await load.stop();
      await target.restore();
      const result = await settle({ scenario, load, api, kafka, namespace, recoveredAt: recoveredMoment, poisoned, letters: options.letters });
      if (faultError) result.failures.unshift(`the fault itself failed: ${(faultError as Error).message}`);
      const { failures: faultFailures = [], ...rest } = outcome;
      Object.assign(result, rest);
      result.failures.push(...faultFailures);
      results.push(result);
      log(describe(result));
    }
  } finally {
    await producer.disconnect().catch(() => undefined);
  }
  return results;
}

interface Settling {
  scenario: Pick<Scenario, 'name' | 'guarantees' | 'duplicatesOn' | 'zeroFailures'>;
  load: OrderLoad;
  api: Api;
  kafka: kafkajs.Kafka;
  namespace: string;
  recoveredAt: number;
  poisoned: Set<string>;
  letters: DeadLetterBook;
}

/** After recovery: what every invariant needs, each read against the scenario's own pets and orders, then judged. */
async function settle({ scenario, load, api, kafka, namespace, recoveredAt, poisoned, letters }: Settling): Promise<ScenarioResult> {
  const deadline = recoveredAt + SETTLE_SECONDS * 1000;
  const unresolved = await load.resolveUnknown(deadline);

  // Every accepted order decided: nothing of the scenario's pets left `placed`.
  let decidedAt: number | undefined;
  while (Date.now() < deadline) {
    const placed: Order[][] = await Promise.all(load.pets.map((pet) => api.must('GET', `/v1/store/orders?petId=${pet.id}&status=placed&limit=1`, undefined, [200])));
    if (placed.every((page) => page.length === 0)) {
      decidedAt = Date.now();
      break;
    }
    await sleep(250);
  }
  const orders = (await Promise.all(load.pets.map((pet) => api.ordersOf(pet.id)))).flat();
  const stockLeft = new Map<number, number>();
  for (const pet of load.pets) {
    const item = await api.call('GET', `/v1/store/inventory/${pet.id}`);
    stockLeft.set(pet.id, item.status === 200 ? item.body.quantity : 0);
  }
  // The poison events are not decisions: the consumers refused them.
  const decisions = await decisionsOf(kafka, namespace, orders.map((o) => o.id), poisoned);
  const republished = scenario.duplicatesOn ? await republishedOn(kafka, `${namespace}${scenario.duplicatesOn}`) : 0;

  // No partition stuck: every group caught up with every topic it reads.
  let lag;
  do {
    lag = await consumerLag(kafka, namespace);
    if (lag.lag === 0) break;
    await sleep(500);
  } while (Date.now() < deadline);
  const caughtUpAt = Date.now();

  // The dead-letter topics are judged on what this scenario added.
  const added = (await deadLetters(kafka, namespace)).filter((letter) => !letters.seen.has(letter.id));
  for (const letter of added) letters.seen.add(letter.id);

  const verdict = judge({
    unresolved,
    acceptedIds: [...load.accepted.keys()],
    orders,
    pets: load.pets,
    stockLeft,
    decisions,
    lag,
    letters: added,
    poisoned,
    deadLettered: letters.deadLettered,
    serverErrors: load.serverErrors,
    failedAnswers: load.failedAnswers,
    zeroFailures: Boolean(scenario.zeroFailures),
  });
  for (const eventId of verdict.deadLettered) letters.deadLettered.add(eventId);
  return {
    name: scenario.name,
    guarantees: scenario.guarantees,
    offered: load.offered,
    accepted: load.accepted.size,
    refused: load.refused,
    statuses: load.statuses,
    readStatuses: load.readStatuses,
    samples: load.samples,
    serverErrors: load.serverErrors,
    failedAnswers: load.failedAnswers,
    zeroFailures: Boolean(scenario.zeroFailures),
    lost: verdict.lost,
    stuck: verdict.stuck,
    stockMismatches: verdict.stockMismatches,
    redelivered: decisions.redelivered + republished,
    settleSeconds: decidedAt ? seconds(Math.max(decidedAt, caughtUpAt) - recoveredAt) : null,
    failures: verdict.failures,
  };
}
