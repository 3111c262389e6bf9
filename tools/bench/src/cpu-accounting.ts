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

/** CPU seconds used so far by each process, by pid, with the part of the machine it belongs to. */
export type CpuSnapshot = Map<string, { part: string; cpu: number }>;

/** CPU seconds each part used between two snapshots (a process that started meanwhile counts from zero). */
export function cpuSpent(before: CpuSnapshot, after: CpuSnapshot): Record<string, number> {
  const spent: Record<string, number> = {};
  for (const [pid, { part, cpu }] of after) spent[part] = (spent[part] ?? 0) + cpu - (before.get(pid)?.cpu ?? 0);
  return spent;
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

/** All the CPU the machine spent per decided order (ms). */
export function cpuTotal(figures: { cpuMsPerOrder?: Record<string, number> }): number {
  const sum = Object.values(figures.cpuMsPerOrder ?? {}).reduce((total, ms) => total + ms, 0);
  return Number(sum.toFixed(2));
}
