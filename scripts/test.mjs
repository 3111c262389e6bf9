// `npm test`: every test of every project — lint (module boundaries included), unit and
// integration tests against the real PostgreSQL and Kafka, end-to-end through the gateway, then
// the short chaos suite (faults under load on a stack of its own; `npm run chaos` is the full one).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import stack from '../tools/stack/stack.cjs';
import testTools from '../tools/stack/test-tools.cjs';

const { ROOT, ensurePostgres, ensureKafka } = stack;
const { ensureDebianTools, chartTools } = testTools;
const summaryDir = path.join(ROOT, 'tmp/test-summary');
const nxEnv = { ...process.env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true', NX_TUI: 'false', JEST_SUMMARY_DIR: summaryDir };

/** A stage that hangs (a leaked handle, a lost broker) fails after `minutes` instead of holding CI forever. */
function nx(minutes, ...args) {
  const result = spawnSync('npx', ['nx', ...args, '--outputStyle=static'], {
    cwd: ROOT,
    stdio: 'inherit',
    env: nxEnv,
    timeout: minutes * 60_000,
    killSignal: 'SIGKILL',
  });
  if (result.error?.code === 'ETIMEDOUT') console.error(`\nnx ${args.join(' ')} did not finish within ${minutes} minutes`);
  return result.status === 0;
}

/** Bounded like the nx stages; the chaos run also stops itself before this. */
function chaosShort(minutes) {
  const result = spawnSync(process.execPath, [path.join(ROOT, 'scripts/chaos.mjs'), '--short'], {
    cwd: ROOT,
    stdio: 'inherit',
    env: nxEnv,
    timeout: minutes * 60_000,
    killSignal: 'SIGKILL',
  });
  if (result.error?.code === 'ETIMEDOUT') console.error(`\nthe short chaos suite did not finish within ${minutes} minutes`);
  return result.status === 0;
}

/**
 * Jest's per-project totals, added up into the one line a reader (or CI) looks for, with the
 * tests that failed named above it: their own reports are far up the output.
 */
function printSummary() {
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  const failures = [];
  for (const file of fs.existsSync(summaryDir) ? fs.readdirSync(summaryDir) : []) {
    const counts = JSON.parse(fs.readFileSync(path.join(summaryDir, file), 'utf8'));
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

try {
  await ensurePostgres();
  ensureKafka();
  // NATS and Redis: servers of the suites' own, started by Jest's global setup and by each stack.
  // The command-line tools some tests run (promtool, Compose, helm, kubectl), installed on first use.
  ensureDebianTools();
  chartTools();
} catch (error) {
  console.error(error.message);
  process.exit(1);
}

fs.rmSync(summaryDir, { recursive: true, force: true });
// Two at a time: the suites share two cores with PostgreSQL and Kafka.
const unitAndIntegration = nx(25, 'run-many', '-t', 'lint', 'test', '--parallel=2');
const endToEnd = nx(20, 'run', 'gateway-e2e:e2e');
const chaos = chaosShort(13);
printSummary();
// A lint error or a stage that timed out fails no Jest test, so the stages are named too.
const failedStages = Object.entries({ 'lint and unit/integration tests': unitAndIntegration, 'end-to-end tests': endToEnd, 'short chaos suite': chaos })
  .filter(([, passed]) => !passed)
  .map(([stage]) => stage);
if (failedStages.length > 0) console.log(`Stages that failed: ${failedStages.join(', ')}`);
process.exit(failedStages.length === 0 ? 0 : 1);
