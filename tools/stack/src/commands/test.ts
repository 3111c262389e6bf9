// `npm test`: every test of every project — the type check of every library and app with their
// tests (tsconfig.typecheck.json), lint (module boundaries and each tool's type check included),
// unit and integration tests against the real PostgreSQL and Kafka, end-to-end through
// the gateway, then the short chaos suite (faults under load on a stack of its own; `npm run chaos`
// is the full one).
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ensureKafka } from '../kafka';
import { ensurePostgres } from '../machine-services';
import { ROOT } from '../paths';
import { chartTools, ensureDebianTools } from '../test-tools';

const summaryDir = path.join(ROOT, 'tmp/test-summary');
const nxEnv = { ...process.env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true', NX_TUI: 'false', JEST_SUMMARY_DIR: summaryDir };

/** Runs one stage to its end; a stage that hangs (a leaked handle, a lost broker) fails after `minutes` instead of holding CI forever. */
function stage(what: string, minutes: number, command: string, args: string[]): boolean {
  const result = spawnSync(command, args, { cwd: ROOT, stdio: 'inherit', env: nxEnv, timeout: minutes * 60_000, killSignal: 'SIGKILL' });
  if ((result.error as NodeJS.ErrnoException | undefined)?.code === 'ETIMEDOUT') console.error(`\n${what} did not finish within ${minutes} minutes`);
  return result.status === 0;
}

function nx(minutes: number, ...args: string[]): boolean {
  return stage(`nx ${args.join(' ')}`, minutes, 'npx', ['nx', ...args, '--outputStyle=static']);
}

/** Bounded like the nx stages; the chaos run also stops itself before this. */
function chaosShort(minutes: number): boolean {
  return stage('the short chaos suite', minutes, process.execPath, [path.join(ROOT, 'scripts/chaos.mjs'), '--short']);
}

interface ProjectSummary {
  passed: number;
  failed: number;
  skipped: number;
  failures?: Array<{ where: string; test: string; reason: string }>;
}

/**
 * Jest's per-project totals (tools/jest/summary-reporter.js), added up into the one line a reader
 * (or CI) looks for, with the tests that failed named above it: their own reports are far up the output.
 */
function printSummary(): void {
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  const failures: NonNullable<ProjectSummary['failures']> = [];
  for (const file of fs.existsSync(summaryDir) ? fs.readdirSync(summaryDir) : []) {
    const counts = JSON.parse(fs.readFileSync(path.join(summaryDir, file), 'utf8')) as ProjectSummary;
    passed += counts.passed;
    failed += counts.failed;
    skipped += counts.skipped;
    failures.push(...(counts.failures ?? []));
  }
  if (failures.length > 0) {
    console.log('\nFailed:');
    for (const { where, test, reason } of failures) console.log(`  ${where} › ${test}\n      ${reason}`);
  }
  console.log(`\nTests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
}

/** 0 when every stage passed. */
export async function test(): Promise<number> {
  try {
    await ensurePostgres();
    ensureKafka();
    // NATS and Redis: servers of the suites' own, started by Jest's global setup and by each stack.
    // The command-line tools some tests run (promtool, Compose, helm, kubectl), installed on first use.
    ensureDebianTools();
    chartTools();
  } catch (error) {
    console.error((error as Error).message);
    return 1;
  }

  fs.rmSync(summaryDir, { recursive: true, force: true });
  const typeCheck = stage('the type check', 5, 'npx', ['tsc', '-p', 'tsconfig.typecheck.json']);
  // Two at a time: the suites share two cores with PostgreSQL and Kafka.
  const unitAndIntegration = nx(25, 'run-many', '-t', 'lint', 'test', '--parallel=2');
  const endToEnd = nx(20, 'run', 'gateway-e2e:e2e');
  const chaos = chaosShort(13);
  printSummary();
  // A lint error or a stage that timed out fails no Jest test, so the stages are named too.
  const failedStages = Object.entries({ 'type check of the libraries and apps': typeCheck, 'lint and unit/integration tests': unitAndIntegration, 'end-to-end tests': endToEnd, 'short chaos suite': chaos })
    .filter(([, passed]) => !passed)
    .map(([name]) => name);
  if (failedStages.length > 0) console.log(`Stages that failed: ${failedStages.join(', ')}`);
  return failedStages.length === 0 ? 0 : 1;
}
