// `npm start`: the whole stack on this machine — Kafka, the databases and their
// migrations, the three services and the gateway. Ctrl-C stops what it started.
import stack from '../tools/stack/stack.cjs';
import { terminalOutput } from '../tools/stack/terminal-output.mjs';

const { ensurePostgres, ensureKafka, build, stackLayout, runMigrations, startStack, DEV_API_KEY } = stack;

const layout = stackLayout();
/**
 * What the running processes log: warnings and errors by default, as in the benchmarks' stack.
 * At `log` (info) each request, RPC and handled event is a line (about four per order), each
 * formatted again here for the terminal; `LOG_LEVEL=log npm start` asks for them (README,
 * `npm start` and the benchmarks' stack). The migrations keep the level they are given: they run once.
 */
const stackEnv = { LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' };

let running;
let stopping = false;

async function shutdown(signal) {
  if (stopping) return;
  stopping = true;
  console.log(`\n${signal}: stopping the services…`);
  await running?.stop();
  console.log('Stopped. Kafka keeps running for the next start; `npm run kafka:stop` stops it.');
  process.exit(0);
}

process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));

try {
  await ensurePostgres();
  ensureKafka();
  build();
  runMigrations(layout);
  running = await startStack(layout, { extraEnv: stackEnv, output: terminalOutput() });
  if (stopping) process.exit(0);
  const gateway = layout.urls.gateway;
  console.log(`
  Pet Store API  ${gateway}/v1/pets
  Docs           ${gateway}/docs
  OpenAPI        ${gateway}/openapi.json
  Dev API key    ${DEV_API_KEY}   (Authorization: Bearer ${DEV_API_KEY})
  Logs           ${stackEnv.LOG_LEVEL === 'warn' ? 'warnings and errors (LOG_LEVEL=log npm start: a line per request and per event)' : `LOG_LEVEL=${stackEnv.LOG_LEVEL}`}

  Ctrl-C stops the services.`);
} catch (error) {
  console.error(`\nnpm start failed: ${error.message}`);
  await running?.stop();
  process.exit(1);
}
