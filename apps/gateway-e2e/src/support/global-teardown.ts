import { existsSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { kafka, type OtlpReceiver, type RunningStack } from '@petstore/stack';
import { STACK_STATE_FILE, type StackState } from './stack-state';

/** What Prism saw: every request it forwarded, and the responses that broke the document. */
function reportPrism(): void {
  const log = join(dirname(STACK_STATE_FILE), 'prism.log');
  if (!existsSync(log)) return;
  const lines = readFileSync(log, 'utf8').split('\n');
  const requests = lines.filter((line) => line.includes('Request received')).length;
  const violations = lines.filter((line) => /Violation: response/.test(line)).length;
  console.log(`\n[prism] ${requests} requests checked against /openapi.json, ${violations} response violations`);
}

export default async function globalTeardown(): Promise<void> {
  reportPrism();
  const running = (globalThis as Record<string, unknown>).__petstoreStack as RunningStack | undefined;
  await running?.stop();
  await ((globalThis as Record<string, unknown>).__petstoreTraces as OtlpReceiver | undefined)?.close();
  // Services a test restarted are not children of this process: stop them by pid.
  try {
    const state = JSON.parse(readFileSync(STACK_STATE_FILE, 'utf8')) as StackState;
    for (const pid of [...Object.values(state.pids), state.prismPid]) {
      try {
        process.kill(pid, 'SIGTERM');
      } catch {
        // already gone
      }
    }
    // The run's own broker is not needed between runs: give its memory back.
    kafka('stop', state.broker);
  } catch {
    // no state file: setup failed before writing it
  }
  rmSync(STACK_STATE_FILE, { force: true });
}
