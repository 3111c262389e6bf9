// How fast the host runs a fixed piece of work just before and just after each measured run.
// This host's speed has moved by up to 2× within minutes with nothing in the guest to show it
// (no steal time), so a ratio of two runs can measure the host rather than the code. The probe
// times the same work every time, in this process, by the CPU time of its own thread: the time it
// waits for its turn on a core does not count; a slower CPU, or time the hypervisor takes without
// telling the guest, does. That still rises when the guest keeps every core busy (the host gives a
// busy guest less), which is why it is taken around each run, not during it. The report shows how
// far it moved across the runs behind each figure.
import { createHash } from 'node:crypto';
import { percentile, round } from './figures';

/** The probe's CPU time (ms) for its fixed work just before a run and just after it: more is slower. */
export interface HostProbe {
  before: number;
  after: number;
}

/** How far the probe moved across a set of runs. */
export interface HostSpread {
  fastestMs: number;
  slowestMs: number;
  /** The slowest probe over the fastest, less one: 0.25 means some run's host was a quarter slower. */
  moved: number;
}

/**
 * A spread above this leaves the figures' ratios to the host as much as to the code. Probes of an
 * idle machine here vary by up to 18 %; the swings the probe is for are 50 % to 2×.
 */
export const HOST_MOVED_LIMIT = 0.25;

/**
 * This thread's CPU time (Node 23.9 and later; the repository's @types/node predates it). Where
 * it is missing, the process's: the probe runs while this process does nothing else.
 */
const cpuUsage: (previous?: NodeJS.CpuUsage) => NodeJS.CpuUsage =
  (process as { threadCpuUsage?: typeof process.cpuUsage }).threadCpuUsage?.bind(process) ?? process.cpuUsage.bind(process);

/**
 * Long enough that the kernel's tick (4 ms here: a thread's CPU time is read as of its last tick
 * or switch) is a few percent of a repetition; five, for a median that two disturbed
 * repetitions cannot move.
 */
const REPETITIONS = 5;
const ORDERS_PER_REPETITION = 32_000;

/**
 * One repetition of the probe's work: what the stack's processes do most — JSON in and out,
 * hashing, small objects — on 32,000 order-shaped values (some 70 ms). Returns a checksum so none of it is dead code.
 */
function probeWork(): number {
  let checksum = 0;
  for (let i = 0; i < ORDERS_PER_REPETITION; i++) {
    const order = { id: i, petId: 1 + (i % 97), quantity: 1 + (i % 5), status: 'placed', requestId: `probe-${i}`, placedAt: '2026-11-30T00:00:00.000Z' };
    const text = JSON.stringify(order);
    const parsed = JSON.parse(text) as typeof order;
    checksum += parsed.quantity + createHash('sha256').update(text).digest()[0];
  }
  return checksum;
}

/** The median CPU time (ms) of this thread over the probe's repetitions, after one to warm the code up. */
export function probeHostMs(): number {
  probeWork();
  const times: number[] = [];
  for (let i = 0; i < REPETITIONS; i++) {
    const start = cpuUsage();
    probeWork();
    const spent = cpuUsage(start);
    times.push((spent.user + spent.system) / 1000);
  }
  return round(percentile(times.sort((a, b) => a - b), 50), 2) ?? 0;
}

/** `run`'s result with the probe taken just before and just after it. */
export async function withHostProbe<T extends object>(run: () => Promise<T>): Promise<T & { hostProbeMs: HostProbe }> {
  const before = probeHostMs();
  const result = await run();
  return { ...result, hostProbeMs: { before, after: probeHostMs() } };
}

/** The spread of every probe of `runs`; undefined when none of them was probed (runs before 2026-11-30). */
export function hostSpread(runs: readonly ({ hostProbeMs?: HostProbe } | undefined)[]): HostSpread | undefined {
  const probes = runs.flatMap((run) => (run?.hostProbeMs ? [run.hostProbeMs.before, run.hostProbeMs.after] : []));
  if (probes.length === 0) return undefined;
  const fastestMs = Math.min(...probes);
  const slowestMs = Math.max(...probes);
  return { fastestMs, slowestMs, moved: round(slowestMs / fastestMs - 1, 2) ?? 0 };
}

/** The spread as the report shows it, flagged when it is over HOST_MOVED_LIMIT. */
export function hostSpreadText(spread: HostSpread | undefined): string {
  if (!spread) return '';
  const range = spread.fastestMs === spread.slowestMs ? `${spread.fastestMs} ms` : `${spread.fastestMs}–${spread.slowestMs} ms`;
  const moved = `${Math.round(spread.moved * 100)} %`;
  return spread.moved > HOST_MOVED_LIMIT ? `${range}: **moved ${moved}**` : `${range} (${moved})`;
}
