import {
  type CpuSnapshot,
  contextSwitchesOfStatus,
  cpuMsPerOrder,
  cpuSecondsOfStat,
  cpuSpent,
  cpuTicksOfProcStat,
  cpuTotal,
  cpuUsPerRequest,
  machineLoad,
  switchesPerOrder,
  runQueueSecondsOfSchedstat,
  switchesTotal,
  USER_HZ,
  waitingMsPerOrder,
  waitingTotal,
  waitingUsOfPressure,
} from './cpu-accounting';

/** A /proc/<pid>/stat line with `utime` and `stime` (clock ticks) in fields 14 and 15. */
const stat = (pid: number, comm: string, utime: number, stime: number) =>
  `${pid} (${comm}) S 1 ${pid} ${pid} 0 -1 4194560 1834 0 0 0 ${utime} ${stime} 0 0 20 0 11 0 123456 1073741824 12345 18446744073709551615 1 1 0 0 0 0 0 4096 0 0 0 0 17 1 0 0 0 0 0`;

describe('CPU from /proc/<pid>/stat', () => {
  it('adds user and system time, counted in USER_HZ ticks a second', () => {
    expect(USER_HZ).toBe(100);
    expect(cpuSecondsOfStat(stat(42, 'node', 250, 50))).toBe(3);
    expect(cpuSecondsOfStat(stat(7, 'postgres', 1, 0))).toBe(0.01);
  });

  it('counts the fields after the command name, even one with spaces and brackets', () => {
    expect(cpuSecondsOfStat(stat(9, 'C2 CompilerThre', 100, 100))).toBe(2);
    expect(cpuSecondsOfStat(stat(9, 'a) (b', 30, 20))).toBe(0.5);
  });
});

describe('Context switches from /proc/<pid>/task/<tid>/status', () => {
  const status = (voluntary: number, nonvoluntary: number) =>
    `Name:\tnode\nState:\tS (sleeping)\nTgid:\t42\nPid:\t43\nThreads:\t11\nvoluntary_ctxt_switches:\t${voluntary}\nnonvoluntary_ctxt_switches:\t${nonvoluntary}\n`;

  it('adds the times a thread waited and the times it was made to give up its core', () => {
    expect(contextSwitchesOfStatus(status(1200, 34))).toBe(1234);
  });

  it('counts nothing where the kernel gives no counts', () => {
    expect(contextSwitchesOfStatus('Name:\tnode\n')).toBe(0);
  });
});

describe('runQueueSecondsOfSchedstat', () => {
  it('reads the time ready to run and not running (ns, the second field)', () => {
    expect(runQueueSecondsOfSchedstat('12171000000 20145000000 45210\n')).toBe(20.145);
  });

  it('counts nothing where the text holds no such field', () => {
    expect(runQueueSecondsOfSchedstat('')).toBe(0);
  });
});

describe('CPU per order and per request', () => {
  const before: CpuSnapshot = new Map([
    ['100', { part: 'orders', cpu: 10, switches: 5000, waiting: 20 }],
    ['200', { part: 'postgres', cpu: 4, switches: 700, waiting: 3 }],
    ['201', { part: 'postgres', cpu: 1, switches: 300, waiting: 1 }],
    ['300', { part: 'load generator', cpu: 2, switches: 90, waiting: 5 }],
  ]);
  const after: CpuSnapshot = new Map([
    ['100', { part: 'orders', cpu: 12, switches: 13_000, waiting: 24 }],
    ['200', { part: 'postgres', cpu: 4.5, switches: 4700, waiting: 4 }],
    ['201', { part: 'postgres', cpu: 1.25, switches: 2300, waiting: 1.5 }],
    // a backend that started during the run counts from zero
    ['202', { part: 'postgres', cpu: 0.25, switches: 1000, waiting: 0.5 }],
    // a process whose threads ended during the run counts nothing, not less
    ['300', { part: 'load generator', cpu: 2, switches: 40, waiting: 4 }],
  ]);

  it('sums what each part spent between two snapshots', () => {
    expect(cpuSpent(before, after)).toEqual({ orders: 2, postgres: 1, 'load generator': 0 });
  });

  it('divides by the decided orders (ms, two decimals), one order at least', () => {
    expect(cpuMsPerOrder(cpuSpent(before, after), 4000)).toEqual({ orders: 0.5, postgres: 0.25, 'load generator': 0 });
    expect(cpuMsPerOrder({ orders: 0.003 }, 0)).toEqual({ orders: 3 });
    expect(cpuMsPerOrder({ orders: 1 }, 3)).toEqual({ orders: 333.33 });
  });

  it('gives µs per request of the parts that worked', () => {
    expect(cpuUsPerRequest(cpuSpent(before, after), 10_000)).toEqual({ orders: 200, postgres: 100 });
  });

  it('gives context switches per decided order (one decimal), one order at least', () => {
    expect(switchesPerOrder(before, after, 1000)).toEqual({ orders: 8, postgres: 7, 'load generator': 0 });
    expect(switchesPerOrder(before, after, 0)).toEqual({ orders: 8000, postgres: 7000, 'load generator': 0 });
    expect(switchesTotal({ switchesPerOrder: { orders: 8.2, postgres: 7.05, kafka: 0.04 } })).toBe(15.3);
    expect(switchesTotal({})).toBe(0);
  });

  it('gives the time waiting for a core per decided order (ms, two decimals), nothing where no thread waited', () => {
    expect(waitingMsPerOrder(before, after, 1000)).toEqual({ orders: 4, postgres: 2, 'load generator': 0 });
    expect(waitingTotal({ waitingMsPerOrder: { orders: 2.77, postgres: 2.15 } })).toBe(4.92);
    expect(waitingMsPerOrder(before, before, 1000)).toBeUndefined();
    expect(waitingTotal({})).toBe(0);
  });

  it('totals a run over every part', () => {
    expect(cpuTotal({ cpuMsPerOrder: { orders: 0.5, postgres: 0.25, kafka: 0.111 } })).toBe(0.86);
    expect(cpuTotal({})).toBe(0);
  });
});

describe('How full the machine was, from /proc/stat and /proc/pressure/cpu', () => {
  it('counts idle and iowait as idle, everything else on the first line as busy', () => {
    const stat = 'cpu  100 5 40 800 20 3 2 10 7 0\ncpu0 50 2 20 400 10 1 1 5 3 0\nintr 12345\n';
    expect(cpuTicksOfProcStat(stat)).toEqual({ busy: 160, idle: 820, cores: 1 });
    expect(cpuTicksOfProcStat(`${stat}cpu1 50 3 20 400 10 2 1 5 4 0\n`).cores).toBe(2);
  });

  it("reads the total of PSI's `some` line, and nothing from a kernel without one", () => {
    const pressure = 'some avg10=0.52 avg60=6.34 avg300=31.60 total=593029912\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n';
    expect(waitingUsOfPressure(pressure)).toBe(593_029_912);
    expect(waitingUsOfPressure('')).toBeNull();
  });

  it('gives the cores busy on average and the share of the wall time some task waited for a core', () => {
    const before = { atMs: 1_000, cores: 2, busyTicks: 1_000, idleTicks: 5_000, waitingUs: 7_000_000 };
    // 20 s on 2 cores: 4,000 ticks, 3,000 of them busy; some task waited 12 s of the 20.
    const after = { atMs: 21_000, cores: 2, busyTicks: 4_000, idleTicks: 6_000, waitingUs: 19_000_000 };
    expect(machineLoad(before, after)).toEqual({ busyCores: 1.5, waitingPercent: 60 });
    expect(machineLoad({ ...before, waitingUs: null }, after)).toEqual({ busyCores: 1.5, waitingPercent: null });
  });
});
