import { readFileSync, rmSync } from 'node:fs';
import { STACK_STATE_FILE, type StackState } from './stack-state';

// eslint-disable-next-line @nx/enforce-module-boundaries
const stack = require('../../../../scripts/lib/stack.cjs');

export default async function globalTeardown(): Promise<void> {
  const running = (globalThis as Record<string, unknown>).__petstoreStack as { stop(): Promise<void> } | undefined;
  await running?.stop();
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
    stack.kafka('stop', state.broker);
  } catch {
    // no state file: setup failed before writing it
  }
  rmSync(STACK_STATE_FILE, { force: true });
}
