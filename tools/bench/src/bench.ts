// `npm run bench`: what the gateway costs on the read path, how many orders the saga decides and
// how fast, beside floors that do the same jobs with nothing but node:http, pg and kafkajs, plus
// `Prefer: wait`, memory, idle CPU and what tracing and the bus's security cost — measured in one
// run on one machine and written to docs/BENCHMARKS.md (raw figures in docs/bench/).
import * as pg from 'pg';
import { deleteBenchTopics } from './bench-kafka';
import { BenchStack } from './bench-stack';
import { benchCluster } from './cluster';
import { checkStock, environment } from './database-figures';
import { log, sleep } from './figures';
import { ADMIN_DATABASE_URL, API_KEY, IDLE_SECONDS, ORDER_PETS, RATE_ROUNDS, READ_ROUNDS, SECTIONS, SETTINGS, STOCK_PER_PET } from './knobs';
import { atRate, capacity, capacityInRounds, withWait } from './measure';
import { memoryOf, peakRssSampler } from './memory';
import { idleCpu } from './proc-cpu';
import { type LaterRateRound, stackRanFirst } from './rate-rounds';
import { afterLulls } from './lull';
import { readPath } from './read-path';
import { ROUND_TRIP_RATES, roundTripCosts } from './round-trip-cost';
import { writeReport } from './report';
import type { BenchResults } from './results';
import { startSagaFloor } from './saga-floor-process';
import { sagaStages, stackStageSources } from './saga-stages';
import { TARGET_RATES } from './saga-targets';
import { securityCost } from './security';
import { soak } from './soak';
import { apiClient, onOnePet, orderRequest, type Target } from './target';
import { tracingCost } from './tracing';
import { transportRuns } from './transports';

type Results = Omit<BenchResults, 'environment'> & Partial<Pick<BenchResults, 'environment'>>;
type Api = ReturnType<typeof apiClient>;

interface Seeded {
  category: { id: number };
  /** The pets orders are placed for, each stocked with STOCK_PER_PET units. */
  orderPets: { id: number }[];
}

/** A category with 200 pets, the first ORDER_PETS of them stocked. */
async function seed(call: Api): Promise<Seeded> {
  log('seeding');
  const category = await call('POST', '/v1/categories', { name: 'Bench dogs', description: 'Seeded by the benchmark' });
  const pets: { id: number }[] = [];
  for (let i = 0; i < 200; i += 1) pets.push(await call('POST', '/v1/pets', { name: `Bench pet ${i}`, categoryId: category.id }));
  const orderPets = pets.slice(0, ORDER_PETS);
  for (const pet of orderPets) await call('PUT', `/v1/store/inventory/${pet.id}`, { quantity: STOCK_PER_PET });
  await sleep(2000);
  return { category, orderPets };
}

/** The stack as the saga's load target: orders through the gateway, round the order pets. */
function stackTarget(stack: BenchStack, ordersDb: pg.Pool, headers: Record<string, string>, nextPetId: () => number): Target {
  return {
    url: `${stack.layout.urls.gateway}/v1/store/orders`,
    db: ordersDb,
    table: 'store_order',
    request: orderRequest(headers, nextPetId),
    processes: stack.processes,
    stages: (since) => sagaStages(stack.layout, stackStageSources(stack.layout, stack.namespace), since),
  };
}

/** The sections that place orders on the stack as it first started (and the floor beside it). */
async function loadSections(stack: BenchStack, { category, orderPets }: Seeded, ours: Target, nextPetId: () => number, results: Results) {
  if (SECTIONS.has('reads')) results.reads = await readPath(stack.layout, category, stack.processes, { baselineOptions: stack.processOptions, rounds: READ_ROUNDS });
  // The floor's runs and the stack's are paired, the floor's first: this host's speed drifts within
  // minutes, and a ratio of runs far apart would measure the drift. Each idles while the other runs.
  const needsFloor = SECTIONS.has('floor') || SECTIONS.has('lull');
  if (needsFloor) log(`saga floor (node:http + pg + kafkajs${SETTINGS.FLOOR_FRONT === 'nats' ? ', behind a front that sends each order over NATS' : ''})`);
  const floor = needsFloor ? await startSagaFloor(stack.layout, stack.namespace, orderPets.map((pet) => pet.id), { front: SETTINGS.FLOOR_FRONT }) : undefined;
  try {
    const floorTarget = floor?.target(nextPetId);
    // With the lull section alone (BENCH_ONLY=lull), the floor runs only after its lulls.
    const measuredFloor = SECTIONS.has('floor') ? floorTarget : undefined;
    Object.assign(results, await capacityInRounds(measuredFloor && (() => capacity(measuredFloor)), SECTIONS.has('capacity') ? () => capacity(ours) : undefined));
    if (SECTIONS.has('rates')) {
      log(`what a round trip costs this host at ${ROUND_TRIP_RATES.join(' and ')} messages/s`);
      results.roundTrips = await roundTripCosts(ROUND_TRIP_RATES, 3, ADMIN_DATABASE_URL);
    }
    for (const rate of SETTINGS.RATES) {
      if (measuredFloor) {
        log(`saga floor at ${rate} orders/s`);
        (results.floorRates ??= []).push(await atRate(measuredFloor, rate));
      }
      if (SECTIONS.has('rates')) {
        log(`saga at ${rate} orders/s`);
        (results.rates ??= []).push(await atRate(ours, rate));
      }
    }
    if (measuredFloor && SECTIONS.has('rates')) results.laterRateRounds = await laterRateRounds(measuredFloor, ours);
    if (floorTarget && SECTIONS.has('lull')) results.lull = await afterLulls(floorTarget, ours);
  } finally {
    await floor?.stop().catch(() => undefined);
  }
  if (SECTIONS.has('cluster')) results.onePet = await capacity(onOnePet(ours, orderPets[0].id));
  if (SECTIONS.has('wait')) {
    results.wait = [];
    for (const rate of SETTINGS.WAIT_RATES) {
      log(`Prefer: wait=5 at ${rate} orders/s`);
      results.wait.push(await withWait(ours, rate));
    }
  }
  if (SECTIONS.has('soak')) {
    log(`soak: ${SETTINGS.SOAK_MINUTES} min at ${SETTINGS.SOAK_RATE} orders/s`);
    results.soak = await soak(ours, stack.layout);
  }
}

/**
 * The targets' rates again, RATE_ROUNDS - 1 more times. Round 2 runs the stack first and the floor
 * after it, round 3 the floor first again, and so on: a host that slows or speeds up across a
 * round then weighs on each pipeline in turn, instead of always on the one that runs second.
 */
async function laterRateRounds(floorTarget: Target, ours: Target): Promise<LaterRateRound[] | undefined> {
  const rounds: LaterRateRound[] = [];
  for (let round = 2; round <= RATE_ROUNDS; round += 1) {
    for (const rate of TARGET_RATES.filter((offered) => SETTINGS.RATES.includes(offered))) {
      const stackFirst = stackRanFirst(round);
      log(`saga at ${rate} orders/s, round ${round} of ${RATE_ROUNDS}: ${stackFirst ? 'the stack, then the floor' : 'the floor, then the stack'}`);
      const first = await atRate(stackFirst ? ours : floorTarget, rate);
      const second = await atRate(stackFirst ? floorTarget : ours, rate);
      rounds.push(stackFirst ? { round, stack: first, floor: second } : { round, floor: first, stack: second });
    }
  }
  return rounds.length > 0 ? rounds : undefined;
}

/** The sections that watch the stack at rest or restart it differently; after them the first stack is gone. */
async function restartingSections(stack: BenchStack, { category }: Seeded, ours: Target, results: Results) {
  if (SECTIONS.has('idle')) {
    log(`idle CPU over ${IDLE_SECONDS} s`);
    await sleep(10_000);
    results.idleCpu = await idleCpu(stack.processes, IDLE_SECONDS);
  }
  if (SECTIONS.has('tracing')) results.tracing = await tracingCost(stack, ours);
  if (SECTIONS.has('transports')) results.transports = await transportRuns(stack, category, ours);
  if (SECTIONS.has('security')) results.security = await securityCost(stack, category, ours);
}

/** Every section BENCH_ONLY asks for, on the bench's stack, then the cluster's; the report written at the end. */
async function runBenchmark(): Promise<void> {
  const stack = await BenchStack.start();
  const headers = { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' };
  const call = apiClient(stack.layout.urls.gateway, headers);
  const ordersDb = new pg.Pool({ connectionString: stack.layout.envs.orders.DATABASE_URL, max: 2 });
  const results: Results = { startedAt: new Date().toISOString(), settings: SETTINGS };
  try {
    const seeded = await seed(call);
    results.memoryAtRest = memoryOf(stack.processes);
    const peakRss = peakRssSampler(() => stack.processes);
    let next = 0;
    const nextPetId = () => seeded.orderPets[next++ % seeded.orderPets.length].id;
    const ours = stackTarget(stack, ordersDb, headers, nextPetId);
    await loadSections(stack, seeded, ours, nextPetId, results);
    results.memoryUnderWriteLoad = peakRss.stop();
    log('checking stock against approved orders');
    results.stockCheck = await checkStock(call, ordersDb, seeded.orderPets);
    await restartingSections(stack, seeded, ours, results);
  } finally {
    await ordersDb.end();
    await stack.stop();
    await deleteBenchTopics(stack.layout);
  }
  if (SECTIONS.has('cluster')) results.cluster = await benchCluster();
  writeReport({ ...results, environment: await environment() });
}

/** The whole benchmark (`npm run bench`): 0 once the report is written, 1 when a section failed. */
export async function benchmark(): Promise<number> {
  try {
    await runBenchmark();
    return 0;
  } catch (error) {
    console.error(`[bench] failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    return 1;
  }
}
