// `npm start`: the whole stack on this machine — Kafka, the databases and their
// migrations, the three services and the gateway. Ctrl-C stops what it started.
import stack from '../tools/stack/stack.cjs';
import { terminalOutput } from '../tools/stack/terminal-output.mjs';

const { ensurePostgres, ensureKafka, build, stackLayout, runMigrations, startStack, DEV_API_KEY } = stack;

const layout = stackLayout();

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
  running = await startStack(layout, { output: terminalOutput() });
  if (stopping) process.exit(0);
  const gateway = layout.urls.gateway;
  console.log(`
  Pet Store API  ${gateway}/v1/pets
  Docs           ${gateway}/docs
  OpenAPI        ${gateway}/openapi.json
  Dev API key    ${DEV_API_KEY}   (Authorization: Bearer ${DEV_API_KEY})

  Ctrl-C stops the services.`);
} catch (error) {
  console.error(`\nnpm start failed: ${error.message}`);
  await running?.stop();
  process.exit(1);
}
