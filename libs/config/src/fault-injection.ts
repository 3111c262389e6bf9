/**
 * Crash points for the chaos suite: with `FAULT_CRASH_POINT=<point>` the process kills itself
 * (SIGKILL, no shutdown hooks: as a power cut would) the `FAULT_CRASH_AFTER`-th time (default 1)
 * it reaches that point. Unset, a crash point costs one comparison.
 */
export const CRASH_POINTS = ['relay.after-publish', 'consumer.after-commit'] as const;
export type CrashPoint = (typeof CRASH_POINTS)[number];

const armed = process.env['FAULT_CRASH_POINT'];
let remaining = Number(process.env['FAULT_CRASH_AFTER'] ?? 1);

if (armed !== undefined && armed !== '' && !(CRASH_POINTS as readonly string[]).includes(armed)) {
  throw new Error(`FAULT_CRASH_POINT must be one of ${CRASH_POINTS.join(', ')} (got "${armed}")`);
}

export function crashPoint(point: CrashPoint): void {
  if (armed !== point) return;
  remaining -= 1;
  if (remaining > 0) return;
  process.stderr.write(`FAULT_CRASH_POINT ${point} reached: killing the process\n`);
  process.kill(process.pid, 'SIGKILL');
}
