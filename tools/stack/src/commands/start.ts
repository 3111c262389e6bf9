// `npm start`: the whole stack on this machine — Kafka, the databases and their migrations, the
// three services and the gateway. Ctrl-C stops what it started.
import { build, runMigrations } from '../build';
import { ensureKafka } from '../kafka';
import { DEV_API_KEY, stackLayout } from '../layout';
import { ensurePostgres } from '../machine-services';
import { startStack, type RunningStack } from '../processes';
import { terminalOutput } from '../terminal-output';

/** Runs until SIGINT or SIGTERM, which stop the services and exit with 0; a failed start returns 1. */
export async function start(): Promise<number> {
  const layout = stackLayout();
  /**
   * What the running processes log: warnings and errors by default, as in the benchmarks' stack.
   * At `log` (info) each request, RPC and handled event is a line (about four per order), each
   * formatted again here for the terminal; `LOG_LEVEL=log npm start` asks for them (README,
   * `npm start` and the benchmarks' stack). The migrations keep the level they are given: they run once.
   */
  const stackEnv = { LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' };

  let running: RunningStack | undefined;
  let stopping = false;

  const shutdown = async (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal}: stopping the services…`);
    await running?.stop();
    console.log('Stopped. Kafka keeps running for the next start; `npm run kafka:stop` stops it.');
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));

  try {
    await ensurePostgres();
    ensureKafka();
    build();
    await runMigrations(layout);
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
    console.error(`\nnpm start failed: ${(error as Error).message}`);
    await running?.stop();
    return 1;
  }
  // The services run until a signal stops them (shutdown above exits).
  return new Promise<number>(() => undefined);
}
