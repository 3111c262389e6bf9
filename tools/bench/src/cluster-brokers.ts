// The cluster section's three brokers, as /proc shows them: which processes they are, and how much
// of their CPU their JIT compilers take.
import * as fs from 'node:fs';
import { BENCH_CLUSTER_KAFKA } from './knobs';

/** Whether a process's command line is one of the bench cluster's brokers (<dataDir>/node-<n>/). */
export const isBenchClusterBroker = (cmdline: string): boolean => cmdline.includes('kafka.Kafka') && cmdline.includes(`${BENCH_CLUSTER_KAFKA.dataDir}/node-`);

/** Whether a thread's name is one of HotSpot's C1/C2 compiler threads. */
export const isJitThread = (comm: string): boolean => /^C\d CompilerThre/.test(comm);

/** CPU ticks the bench cluster's brokers have used so far: in all, and in their JIT compiler threads. */
export function brokerTicks(): { all: number; jit: number } {
  const ticks = { all: 0, jit: 0 };
  for (const pid of fs.readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
    try {
      if (!isBenchClusterBroker(fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8'))) continue;
      for (const task of fs.readdirSync(`/proc/${pid}/task`)) {
        const stat = fs.readFileSync(`/proc/${pid}/task/${task}/stat`, 'utf8');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        const used = Number(fields[11]) + Number(fields[12]); // utime + stime
        ticks.all += used;
        if (isJitThread(fs.readFileSync(`/proc/${pid}/task/${task}/comm`, 'utf8'))) ticks.jit += used;
      }
    } catch {
      // the process or thread ended meanwhile
    }
  }
  return ticks;
}
