// Readings of /proc: the CPU and memory of the stack's processes and of everything on the machine
// that serves them (PostgreSQL's backends, the brokers, NATS, the bench's Redis, this process).
import type { ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { redisDir } from '@petstore/stack';
import {
  type CpuSnapshot,
  type MachineLoad,
  type MachineReading,
  contextSwitchesOfStatus,
  cpuMsPerOrder,
  cpuSecondsOfStat,
  cpuSpent,
  cpuTicksOfProcStat,
  machineLoad,
  runQueueSecondsOfSchedstat,
  switchesPerOrder,
  waitingMsPerOrder,
  waitingUsOfPressure,
} from './cpu-accounting';
import { round, shareOfCore, sleep } from './figures';
import { isBenchClusterBroker } from './cluster-brokers';
import { KAFKA_DATA_DIR, SECURED_REDIS_PORT, UNSECURED_BUS } from './knobs';

/** Processes by the name the report gives them. */
export type Processes = Record<string, Pick<ChildProcess, 'pid'>>;

/** The processes of started apps (@petstore/launcher's), by name. */
export function childrenOf(started: Iterable<[string, { child: ChildProcess } | undefined]>): Processes {
  const children: Processes = {};
  for (const [name, process] of started) if (process) children[name] = process.child;
  return children;
}

/** CPU seconds a process has used so far (0 once it is gone). */
export function cpuOf(pid: number | string | undefined): number {
  try {
    return cpuSecondsOfStat(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return 0;
  }
}

/**
 * Context switches and seconds waiting for a core of every thread of a process so far, in one
 * pass over its threads (0 once it is gone; no wait where the kernel keeps no schedstat).
 */
function threadsOf(pid: number | string | undefined): { switches: number; waiting: number } {
  const sum = { switches: 0, waiting: 0 };
  let tasks: string[];
  try {
    tasks = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return sum;
  }
  for (const task of tasks) {
    const read = (file: string) => fs.readFileSync(`/proc/${pid}/task/${task}/${file}`, 'utf8');
    try {
      sum.switches += contextSwitchesOfStatus(read('status'));
      sum.waiting += runQueueSecondsOfSchedstat(read('schedstat'));
    } catch {
      // the thread ended meanwhile, or no schedstat
    }
  }
  return sum;
}

/** A process's readings for a snapshot. */
const readingsOf = (part: string, pid: number | string | undefined) => ({ part, cpu: cpuOf(pid), ...threadsOf(pid) });

/** Resident memory of a process (MiB), null once it is gone. */
export function rssMiB(pid: number | undefined): number | null {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    return round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]) / 1024);
  } catch {
    return null;
  }
}

/** The pid a server wrote to `file`, if it still runs. */
function readPid(file: string): string | undefined {
  try {
    const pid = fs.readFileSync(file, 'utf8').trim();
    return fs.existsSync(`/proc/${pid}`) ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** The local PostgreSQL server's main process (its backends are its children). */
function postmasterPid(): string | undefined {
  const dir = '/var/run/postgresql';
  const file = fs.existsSync(dir) ? fs.readdirSync(dir).find((name) => name.endsWith('.pid')) : undefined;
  return file ? fs.readFileSync(path.join(dir, file), 'utf8').trim() : undefined;
}

/** The single broker's configuration, the security section's plaintext one, or one of the bench cluster's three. */
const isBroker = (cmdline: string) =>
  cmdline.includes(`${KAFKA_DATA_DIR}/server.properties`) || cmdline.includes(`${UNSECURED_BUS.kafka.dataDir}/server.properties`) || isBenchClusterBroker(cmdline);

/** The process ids of every running Kafka broker of the stack's, the security section's and the bench cluster's. */
export function brokerPids(): string[] {
  return fs.readdirSync('/proc').filter((entry) => {
    try {
      return /^\d+$/.test(entry) && isBroker(fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8'));
    } catch {
      return false; // gone meanwhile
    }
  });
}

/**
 * CPU seconds used and context switches made so far by each process of the stack, of the local
 * PostgreSQL server (each backend), of the stack's Kafka broker(s), of the NATS server, of the
 * bench's Redis and of this process (the load generator), by pid.
 */
export function cpuSnapshot(processes: Processes): CpuSnapshot {
  const snapshot: CpuSnapshot = new Map(Object.entries(processes).map(([name, child]) => [String(child.pid), readingsOf(name, child.pid)]));
  const postmaster = postmasterPid();
  if (postmaster) snapshot.set(postmaster, readingsOf('postgres', postmaster));
  for (const pid of fs.readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
    try {
      const parent = /PPid:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
      if (parent === postmaster) snapshot.set(pid, readingsOf('postgres', pid));
      else if (isBroker(fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8'))) snapshot.set(pid, readingsOf('kafka', pid));
      else if (fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'nats-server') snapshot.set(pid, readingsOf('nats', pid));
    } catch {
      // gone meanwhile
    }
  }
  // The bench's own Redis servers (the security section's rate limit), not the machine's.
  for (const port of [SECURED_REDIS_PORT, UNSECURED_BUS.redisPort]) {
    const pid = readPid(path.join(redisDir(port), 'redis.pid'));
    if (pid) snapshot.set(pid, readingsOf('redis', pid));
  }
  snapshot.set(String(process.pid), readingsOf('load generator', process.pid));
  return snapshot;
}

/** The machine's CPU counters now (/proc/stat, /proc/pressure/cpu). */
function machineReading(): MachineReading {
  const ticks = cpuTicksOfProcStat(fs.readFileSync('/proc/stat', 'utf8'));
  let waitingUs: number | null = null;
  try {
    waitingUs = waitingUsOfPressure(fs.readFileSync('/proc/pressure/cpu', 'utf8'));
  } catch {
    // a kernel without pressure stall information
  }
  return { atMs: performance.now(), cores: ticks.cores, busyTicks: ticks.busy, idleTicks: ticks.idle, waitingUs };
}

/**
 * `run`'s result, and the CPU (ms) each part of the machine spent and the context switches it
 * made per order decided while it ran, and how full the machine was meanwhile.
 */
export async function withCpuPerOrder<T extends { decided: number }>(
  processes: Processes,
  run: () => Promise<T>,
): Promise<T & { cpuMsPerOrder: Record<string, number>; switchesPerOrder: Record<string, number>; waitingMsPerOrder?: Record<string, number>; machine: MachineLoad }> {
  const before = cpuSnapshot(processes);
  const machineBefore = machineReading();
  const result = await run();
  const machineAfter = machineReading();
  const after = cpuSnapshot(processes);
  return {
    ...result,
    cpuMsPerOrder: cpuMsPerOrder(cpuSpent(before, after), result.decided),
    switchesPerOrder: switchesPerOrder(before, after, result.decided),
    waitingMsPerOrder: waitingMsPerOrder(before, after, result.decided),
    machine: machineLoad(machineBefore, machineAfter),
  };
}

/** Share of one core each process used while nothing was asked of it. */
export async function idleCpu(processes: Processes, seconds: number): Promise<Record<string, number | null>> {
  const before = Object.fromEntries(Object.entries(processes).map(([name, child]) => [name, cpuOf(child.pid)]));
  await sleep(seconds * 1000);
  return Object.fromEntries(Object.entries(processes).map(([name, child]) => [name, shareOfCore(cpuOf(child.pid) - before[name], seconds)]));
}
