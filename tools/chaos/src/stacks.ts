// The two stacks the scenarios run on, each of its own: started, restored after each fault,
// and stopped whatever happens.
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  ROOT,
  SERVICES,
  clusterKafka,
  clusterKafkaAsync,
  clusterLayout,
  dropDatabases,
  ensureKafka,
  ensureNats,
  ensureNatsAndRedis,
  kafka as kafkaCommand,
  kafkaAsync,
  kafkaSecretsDir,
  runMigrations,
  stackLayout,
  startBalancer,
  stopProcess,
  waitForBalancer,
} from '@petstore/stack';
import type { ChildProcess } from 'node:child_process';
import { sleep } from '@petstore/backoff';
import { CLUSTER_SCENARIOS } from './cluster-scenarios';
import type { ChaosOptions } from './options';
import { CHAOS_CLUSTER_KAFKA, CHAOS_KAFKA, ChaosStack, type Env } from './processes';
import type { ScenarioResult } from './report';
import { log, runScenarios, type DeadLetterBook } from './scenario-run';
import { SCENARIOS } from './scenarios';

/** What is running at any moment, so that an abandoned run can kill it synchronously. */
export interface Running {
  stack?: ChaosStack;
  balancer?: ChildProcess;
}

export type RunSettings = ChaosOptions & { apiKey: string; extraEnv: Env; letters: DeadLetterBook };

/** The scenarios of scenarios.ts on the stack of `npm start`'s shape: one process per tier, one broker. */
export async function runSingle(running: Running, settings: RunSettings): Promise<ScenarioResult[]> {
  // Emptied every run, as the cluster's brokers are: the topics of earlier runs would only slow its restarts.
  kafkaCommand('reset', CHAOS_KAFKA);
  ensureKafka(CHAOS_KAFKA);
  const namespace = `chaos-${randomBytes(4).toString('hex')}.`;
  const brokers = `127.0.0.1:${CHAOS_KAFKA.port}`;
  const layout = stackLayout({ offset: 25_000, databaseSuffix: '_chaos', namespace, kafkaBrokers: brokers, kafkaSecrets: kafkaSecretsDir(CHAOS_KAFKA) });
  await dropDatabases(layout);
  await runMigrations(layout, settings.extraEnv);
  // The stack's own NATS server (its processes are started one by one here, not by startStack).
  await ensureNats(layout.nats);
  const chaosStack = new ChaosStack(layout, { extraEnv: settings.extraEnv, output: stackLog('chaos-stack.log') });
  running.stack = chaosStack;
  log(`stack on ports +25000, namespace ${namespace}, broker ${brokers}; service output in tmp/chaos-stack.log`);
  for (const name of SERVICES) await chaosStack.start(name);
  await chaosStack.start('gateway');

  const waitReady = () => waitUntilAllReady(chaosStack, ['catalog', 'orders', 'inventory', 'gateway']);
  const restore = async () => {
    await kafkaAsync('start', CHAOS_KAFKA);
    for (const name of [...SERVICES, 'gateway']) {
      if (!chaosStack.running(name)) await chaosStack.start(name);
    }
    for (const name of [...chaosStack.processes.keys()].filter((n) => n.includes('-'))) await chaosStack.signal(name, 'SIGTERM');
    await waitReady();
  };
  try {
    return await runScenarios(SCENARIOS, { chaosStack, layout, namespace, brokers, waitReady, restore }, settings);
  } finally {
    await chaosStack.stopAll();
    await kafkaAsync('stop', CHAOS_KAFKA).catch(() => undefined);
  }
}

/** The scenarios of cluster-scenarios.ts on the scaled stack: three brokers, two replicas of every tier behind HAProxy. */
export async function runCluster(running: Running, settings: RunSettings): Promise<ScenarioResult[]> {
  const namespace = `chaos-${randomBytes(4).toString('hex')}.`;
  const layout = clusterLayout({ offset: 25_000, databaseSuffix: '_cluster_chaos', namespace, kafka: CHAOS_CLUSTER_KAFKA });
  // From empty brokers: an earlier run's partitions would only slow every broker's restart.
  clusterKafka('reset', CHAOS_CLUSTER_KAFKA);
  clusterKafka('start', CHAOS_CLUSTER_KAFKA);
  await ensureNatsAndRedis(layout);
  await dropDatabases(layout);
  await runMigrations(layout, settings.extraEnv);
  const output = stackLog('chaos-cluster.log');
  const chaosStack = new ChaosStack(layout, { extraEnv: settings.extraEnv, output });
  running.stack = chaosStack;
  log(
    `scaled stack: HAProxy on ${layout.urls.gateway}, ${layout.gateways.length} gateways, ${layout.services.length} service replicas, ` +
      `brokers ${layout.brokers}, namespace ${namespace}; output in tmp/chaos-cluster.log`,
  );
  await Promise.all(layout.services.map((name) => chaosStack.start(name)));
  await Promise.all(layout.gateways.map((name) => chaosStack.start(name)));
  running.balancer = await startBalancer(layout, { output });
  await waitForBalancer(layout);

  const replicas = [...layout.services, ...layout.gateways];
  const waitReady = async () => {
    await waitUntilAllReady(chaosStack, replicas);
    await waitForBalancer(layout, 90_000);
  };
  const restore = async () => {
    clusterKafka('start', CHAOS_CLUSTER_KAFKA);
    for (const name of replicas) {
      if (!chaosStack.running(name)) await chaosStack.start(name);
    }
    for (const name of [...chaosStack.processes.keys()].filter((n) => !replicas.includes(n))) await chaosStack.signal(name, 'SIGTERM');
    await waitReady();
  };
  try {
    return await runScenarios(CLUSTER_SCENARIOS, { chaosStack, layout, namespace, brokers: layout.brokers, waitReady, restore, reads: true }, settings);
  } finally {
    await stopProcess(running.balancer);
    await Promise.all(layout.gateways.map((name) => stopProcess(chaosStack.processes.get(name))));
    await chaosStack.stopAll();
    await clusterKafkaAsync('stop', CHAOS_CLUSTER_KAFKA).catch(() => undefined);
  }
}

function stackLog(name: string): fs.WriteStream {
  fs.mkdirSync(path.join(ROOT, 'tmp'), { recursive: true });
  return fs.createWriteStream(path.join(ROOT, 'tmp', name));
}

async function waitUntilAllReady(chaosStack: ChaosStack, names: string[]): Promise<void> {
  const deadline = Date.now() + 90_000;
  for (const name of names) {
    // The last answer names the check that said no (database, kafka, or no answer at all).
    let lastAnswer = 'no answer';
    const ready = () =>
      fetch(`${chaosStack.urlOf(name)}/health/ready`, { signal: AbortSignal.timeout(2000) }).then(
        async (response) => {
          lastAnswer = `${response.status} ${await response.text()}`;
          return response.ok;
        },
        (error: Error) => {
          lastAnswer = `no answer (${error.message})`;
          return false;
        },
      );
    while (!(await ready())) {
      if (Date.now() > deadline) throw new Error(`${name} was not ready 90 s after the fault; its readiness said: ${lastAnswer}`);
      await sleep(200);
    }
  }
}
