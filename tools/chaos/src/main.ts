// `npm run chaos` (scripts/chaos.mjs): faults under continuous order load on stacks of the run's
// own, the invariants checked after each scenario. What it does is told in tools/chaos/README.md.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from 'pg';
import { KAFKA_SH, ROOT, build, clusterKafkaEnv, ensurePostgres, kafkaShEnv } from '@petstore/stack';
import { chaosOptions } from './options';
import { CHAOS_CLUSTER_KAFKA, CHAOS_KAFKA } from './processes';
import { NEW_REPORT, renderReport, seconds, summaryOf, table, type RunFacts, type ScenarioResult } from './report';
import { DeadLetterBook, PETS, log } from './scenario-run';
import { runCluster, runSingle, type Running } from './stacks';

/**
 * Runs the chaos suite with the command line's `args` (`--short`, `--cluster`, `--single`);
 * answers 1 if a scenario broke an invariant. The process ends with the run, whatever it left.
 */
export async function chaos(args: string[] = []): Promise<number> {
  try {
    return await runChaos(args);
  } catch (error) {
    console.error(`[chaos] failed: ${(error as Error).stack ?? (error as Error).message}`);
    process.exit(1);
  }
}

async function runChaos(args: string[]): Promise<number> {
  const options = chaosOptions(args, process.env);
  const apiKey = `chaos-${randomBytes(12).toString('hex')}`;
  const extraEnv = {
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_SECOND: '0',
    API_KEYS: JSON.stringify([{ name: 'chaos', key: apiKey, scopes: ['*'] }]),
  };
  const startedAt = new Date();
  const running: Running = {};
  // Whatever happens, nothing of the run outlives it: its processes and its brokers go with it.
  const abandon = (reason: string, code: number) => {
    console.error(`[chaos] ${reason}; stopping`);
    running.stack?.killAll();
    running.balancer?.kill('SIGKILL');
    spawnSync('bash', [KAFKA_SH, 'stop'], { env: kafkaShEnv(CHAOS_KAFKA), stdio: 'ignore' });
    spawnSync('bash', [KAFKA_SH, 'cluster', 'stop'], { env: clusterKafkaEnv(CHAOS_CLUSTER_KAFKA), stdio: 'ignore' });
    process.exit(code);
  };
  const hardStop = setTimeout(() => abandon(`the run exceeded ${options.runLimitMinutes} minutes`, 2), options.runLimitMinutes * 60_000);
  hardStop.unref();
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => abandon(signal, 130));

  await ensurePostgres();
  build();
  const settings = { ...options, apiKey, extraEnv, letters: new DeadLetterBook() };
  const results = options.onlyCluster ? [] : await runSingle(running, settings);
  const clusterResults = options.withCluster ? await runCluster(running, settings) : [];

  const all = [...results, ...clusterResults];
  const failed = all.filter((r) => r.failures.length > 0);
  const finishedAt = new Date();
  if (results.length) console.log(table(results));
  if (clusterResults.length) console.log(table(clusterResults, { cluster: true }));
  if (options.short) writeSummary(all);
  else writeReport(results, clusterResults, { startedAt, finishedAt, environment: await environmentOf(), rate: options.rate, pets: PETS });
  log(`${all.length - failed.length} scenario(s) held every invariant, ${failed.length} did not; ${seconds(finishedAt.getTime() - startedAt.getTime())} s in all`);
  clearTimeout(hardStop);
  process.exit(failed.length > 0 ? 1 : 0);
}

/** For `npm test`'s closing line: one test per scenario. */
function writeSummary(results: ScenarioResult[]): void {
  const dir = process.env.JEST_SUMMARY_DIR;
  if (!dir) return;
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'chaos.json'), JSON.stringify(summaryOf(results)));
}

async function environmentOf(): Promise<RunFacts['environment']> {
  const client = new Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
  await client.connect();
  const { rows } = await client.query('show server_version');
  await client.end();
  return { cpus: `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'unknown'}`, node: process.version, postgres: rows[0].server_version };
}

function writeReport(results: ScenarioResult[], clusterResults: ScenarioResult[], facts: RunFacts): void {
  const file = path.join(ROOT, 'docs/RELIABILITY.md');
  const report = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : NEW_REPORT;
  fs.writeFileSync(file, renderReport(report, results, clusterResults, facts));
  log('wrote docs/RELIABILITY.md');
}
