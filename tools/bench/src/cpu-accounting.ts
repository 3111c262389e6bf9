// CPU time from /proc, turned into what each part of the machine spent per request or per order.
// Pure: the readings come from proc-cpu.ts.

/** What /proc/<pid>/stat counts CPU time in on Linux (clock ticks a second). */
export const USER_HZ = 100;

/**
 * CPU seconds (user + system) in the text of a /proc/<pid>/stat. The command name in brackets may
 * hold spaces and brackets itself, so the fields are counted from the last ") ".
 */
export function cpuSecondsOfStat(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / USER_HZ;
}

/**
 * Context switches of one thread so far, from the text of its /proc/<pid>/task/<tid>/status:
 * the times it gave up a core to wait (voluntary) and the times it was made to (nonvoluntary).
 * Each one is the thread put to sleep and woken again, which is what a process pays per wake-up.
 */
export function contextSwitchesOfStatus(status: string): number {
  const count = (line: RegExp) => Number(line.exec(status)?.[1] ?? 0);
  return count(/^voluntary_ctxt_switches:\s+(\d+)/m) + count(/^nonvoluntary_ctxt_switches:\s+(\d+)/m);
}

/**
 * Seconds one thread has spent ready to run and not running (no free core) so far: the second
 * field of its /proc/<pid>/task/<tid>/schedstat, in nanoseconds. 0 where the kernel keeps none.
 */
export function runQueueSecondsOfSchedstat(schedstat: string): number {
  const waitedNs = Number(schedstat.trim().split(/\s+/)[1]);
  return Number.isFinite(waitedNs) ? waitedNs / 1e9 : 0;
}

/** CPU seconds, context switches and seconds waiting for a core (every thread) of each process so far, by pid, with the part of the machine it belongs to. */
export type CpuSnapshot = Map<string, { part: string; cpu: number; switches: number; waiting: number }>;

/**
 * What each part used of one reading between two snapshots. A process that started meanwhile
 * counts from zero; one whose threads ended meanwhile counts nothing rather than less than
 * nothing (a process's CPU keeps its ended threads' time, its context switches and waits do not).
 */
function usedBetween(before: CpuSnapshot, after: CpuSnapshot, reading: 'cpu' | 'switches' | 'waiting'): Record<string, number> {
  const used: Record<string, number> = {};
  for (const [pid, now] of after) used[now.part] = (used[now.part] ?? 0) + Math.max(0, now[reading] - (before.get(pid)?.[reading] ?? 0));
  return used;
}

/** CPU seconds each part used between two snapshots. */
export function cpuSpent(before: CpuSnapshot, after: CpuSnapshot): Record<string, number> {
  return usedBetween(before, after, 'cpu');
}

/** Each part's context switches per decided order (one decimal) between two snapshots; no decisions count as one. */
export function switchesPerOrder(before: CpuSnapshot, after: CpuSnapshot, decided: number): Record<string, number> {
  const made = usedBetween(before, after, 'switches');
  return Object.fromEntries(Object.entries(made).map(([part, switches]) => [part, Number((switches / Math.max(1, decided)).toFixed(1))]));
}

/**
 * Each part's time waiting for a core per decided order (ms, two decimals) between two
 * snapshots: how long its threads were ready to run and found every core taken. Undefined on a
 * kernel that keeps no schedstat (nothing waited at all).
 */
export function waitingMsPerOrder(before: CpuSnapshot, after: CpuSnapshot, decided: number): Record<string, number> | undefined {
  const waited = usedBetween(before, after, 'waiting');
  if (Object.values(waited).every((seconds) => seconds === 0)) return undefined;
  return cpuMsPerOrder(waited, decided);
}

/** Each part's CPU per decided order (ms, two decimals); no decisions count as one. */
export function cpuMsPerOrder(spent: Record<string, number>, decided: number): Record<string, number> {
  return Object.fromEntries(Object.entries(spent).map(([part, seconds]) => [part, Number(((seconds * 1000) / Math.max(1, decided)).toFixed(2))]));
}

/** Each part that used any CPU, per request served (µs, whole). */
export function cpuUsPerRequest(spent: Record<string, number>, requests: number): Record<string, number> {
  return Object.fromEntries(
    Object.entries(spent)
      .filter(([, seconds]) => seconds > 0)
      .map(([part, seconds]) => [part, Math.round((seconds * 1e6) / Math.max(1, requests))]),
  );
}

/** The whole machine's figure per order: every part's, summed, to `digits` decimals. */
function machineTotal(perPart: Record<string, number> | undefined, digits: number): number {
  return Number(Object.values(perPart ?? {}).reduce((total, value) => total + value, 0).toFixed(digits));
}

/** All the context switches of the machine per decided order. */
export function switchesTotal(figures: { switchesPerOrder?: Record<string, number> }): number {
  return machineTotal(figures.switchesPerOrder, 1);
}

/** All the time the machine's processes waited for a core per decided order (ms). */
export function waitingTotal(figures: { waitingMsPerOrder?: Record<string, number> }): number {
  return machineTotal(figures.waitingMsPerOrder, 2);
}

/** How the report says where the brokers' requests per order come from. */
export const BROKER_REQUESTS_NOTE =
  "every broker of the machine, from its own request counters (JMX) read just before and just after the run; a follower fetch is a broker copying the partitions it replicates";

/** All the requests the brokers handled per decided order. */
export function requestsTotal(figures: { brokerRequestsPerOrder?: Record<string, number> }): number {
  return machineTotal(figures.brokerRequestsPerOrder, 2);
}

/** All the CPU the machine spent per decided order (ms). */
export function cpuTotal(figures: { cpuMsPerOrder?: Record<string, number> }): number {
  return machineTotal(figures.cpuMsPerOrder, 2);
}

/** The whole machine's CPU counters at one moment: busy and idle time from /proc/stat, and the CPU pressure stall total. */
export interface MachineReading {
  atMs: number;
  /** The cores /proc/stat counts (a line each). */
  cores: number;
  busyTicks: number;
  idleTicks: number;
  /** PSI's `some` total (µs): the time at least one task was ready to run and found no free core. */
  waitingUs: number | null;
}

/**
 * Busy and idle ticks of every core together, from the text of /proc/stat's first line (idle and
 * iowait count as idle), and how many cores it sums (the `cpuN` lines after it).
 */
export function cpuTicksOfProcStat(stat: string): { busy: number; idle: number; cores: number } {
  const fields = (/^cpu\s+(.*)$/m.exec(stat)?.[1] ?? '').trim().split(/\s+/).map(Number);
  // user nice system idle iowait irq softirq steal (guest time is already inside user and nice)
  const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = fields;
  return { busy: user + nice + system + irq + softirq + steal, idle: idle + iowait, cores: stat.match(/^cpu\d+\s/gm)?.length ?? 0 };
}

/** PSI's `some` total (µs) from the text of /proc/pressure/cpu; null where the kernel keeps none. */
export function waitingUsOfPressure(pressure: string): number | null {
  const total = /^some .*\btotal=(\d+)/m.exec(pressure)?.[1];
  return total === undefined ? null : Number(total);
}

/** The cores busy on average during a run, and the share of its time (%) some task waited for a core (null: no PSI). */
export interface MachineLoad {
  busyCores: number;
  waitingPercent: number | null;
}

/**
 * How full the machine was between two readings. A stage that takes longer than its work does,
 * on a machine where some task waited for a core much of the time, is waiting for a core, not
 * for a peer.
 */
export function machineLoad(before: MachineReading, after: MachineReading): MachineLoad {
  const busy = after.busyTicks - before.busyTicks;
  const all = busy + after.idleTicks - before.idleTicks;
  const wallUs = (after.atMs - before.atMs) * 1000;
  const waiting = before.waitingUs === null || after.waitingUs === null || wallUs <= 0 ? null : Number((((after.waitingUs - before.waitingUs) / wallUs) * 100).toFixed(1));
  return { busyCores: all > 0 ? Number(((busy / all) * after.cores).toFixed(2)) : 0, waitingPercent: waiting };
}
