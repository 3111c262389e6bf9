import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync, openSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import {
  DEV_API_KEY,
  E2E_KAFKA,
  dropDatabases,
  ensureKafka,
  ensurePostgres,
  kafka,
  kafkaSecretsDir,
  npmTools,
  runMigrations,
  stackLayout,
  startOtlpReceiver,
  startStack,
} from '@petstore/stack';
import { apiKeysEnv } from './fixtures';
import { STACK_LOG_FILE, STACK_STATE_FILE, type StackState } from './stack-state';

const PRISM_PORT = 13_090;
/** The OTLP/HTTP port (4318) + 10000: every process of the stack exports its spans here (see `traceSpans`). */
const OTLP_PORT = 14_318;

/**
 * A Prism proxy in front of the gateway, validating every response against the document the
 * gateway serves: the suites' requests go through it (see `api`), and a response that breaks
 * the document fails the test that received it.
 */
async function startPrism(gatewayUrl: string): Promise<{ url: string; pid: number; document: string }> {
  const prism = npmTools()('prism');
  const document = join(dirname(STACK_STATE_FILE), 'openapi.json');
  writeFileSync(document, await (await fetch(`${gatewayUrl}/openapi.json`)).text());
  const log = openSync(join(dirname(STACK_STATE_FILE), 'prism.log'), 'w');
  const child = spawn(prism, ['proxy', document, gatewayUrl, '--host', '127.0.0.1', '--port', String(PRISM_PORT)], { stdio: ['ignore', log, log], detached: true });
  child.unref();
  const url = `http://127.0.0.1:${PRISM_PORT}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      await fetch(`${url}/health/live`);
      return { url, pid: child.pid as number, document };
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`Prism did not start within a minute: ${String(error)}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

/**
 * One real stack for the whole run, on its own ports (+10000), databases (`_e2e`), Kafka
 * broker and namespace, so it never meets a development stack that may be running beside it,
 * and the fault tests that stop the broker disturb nobody else.
 */
export default async function globalSetup(): Promise<void> {
  const namespace = `e2e-${randomBytes(4).toString('hex')}.`;
  const broker = E2E_KAFKA;
  const layout = stackLayout({
    offset: 10_000,
    databaseSuffix: '_e2e',
    namespace,
    kafkaBrokers: `127.0.0.1:${broker.port}`,
    kafkaSecrets: kafkaSecretsDir(broker),
  });
  // The stack's output goes to a file, so it can say more than warnings: a line per request and event (the logs test reads them).
  const extraEnv = { NODE_ENV: 'test', LOG_LEVEL: 'log', RATE_LIMIT_PER_SECOND: '0', API_KEYS: apiKeysEnv(DEV_API_KEY) };
  const traces = await startOtlpReceiver({ port: OTLP_PORT });
  (globalThis as Record<string, unknown>).__petstoreTraces = traces;
  // A deep span queue: the suites before the trace test send bursts that the default 2048 would drop.
  Object.assign(extraEnv, { OTEL_EXPORTER_OTLP_ENDPOINT: traces.url, OTEL_BSP_SCHEDULE_DELAY: '200', OTEL_BSP_MAX_QUEUE_SIZE: '65536' });
  await ensurePostgres();
  // Emptied every run: the topics of earlier runs would only slow the restarts of the broker-outage test.
  kafka('reset', broker);
  ensureKafka(broker);
  await dropDatabases(layout);
  await runMigrations(layout, extraEnv);
  mkdirSync(dirname(STACK_LOG_FILE), { recursive: true });
  // Appending (after emptying it), as the services a test restarts do: a stream at its own offset would overwrite their lines.
  writeFileSync(STACK_LOG_FILE, '');
  const running = await startStack(layout, { extraEnv, output: createWriteStream(STACK_LOG_FILE, { flags: 'a' }) });
  (globalThis as Record<string, unknown>).__petstoreStack = running;
  mkdirSync(dirname(STACK_STATE_FILE), { recursive: true });
  const prism = await startPrism(layout.urls.gateway);

  const state: StackState = {
    namespace,
    broker,
    gatewayUrl: layout.urls.gateway,
    prismUrl: prism.url,
    prismPid: prism.pid,
    openApiFile: prism.document,
    apiKey: DEV_API_KEY,
    envs: layout.envs,
    urls: layout.urls,
    metricsUrls: layout.metricsUrls,
    extraEnv,
    pids: Object.fromEntries(Object.entries(running.processes).map(([name, started]) => [name, started.child.pid as number])),
  };
  writeFileSync(STACK_STATE_FILE, JSON.stringify(state, null, 2));
}
