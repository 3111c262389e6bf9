// Where a process spent its time while not idle: `node scripts/bench.mjs cpu-profile-summary <dir>
// [top] [last-seconds]` reads the V8 profiles that `--cpu-prof` wrote there (BENCH_CPU_PROF) and
// prints, per profile, the self time by package and the functions with the most self time; with
// `last-seconds`, only the samples of a profile's last seconds (e.g. a `BENCH_ONLY=idle` run's
// idle minute).
//
// Not idle is not on a core. V8 samples the JS thread when it next runs, so the time it spends
// preempted lands on the frame it was in. On two busy cores that is often a socket write, whose
// reader takes the core: at 250 orders/s the orders process was not idle for 28.7 s of a run in
// which it ran 12.2 s (/proc/<pid>/task/*/schedstat). For CPU itself, `perf record -e cpu-clock`.
import * as fs from 'node:fs';
import * as path from 'node:path';

interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** node_modules/<package> (or the bundle, node's internals, the engine) a frame belongs to. */
export function packageOf(url: string): string {
  if (!url) return '(engine)';
  if (url.startsWith('node:')) return 'node:internal';
  const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (match) return match[1];
  if (url.includes('/dist/apps/')) return '(app bundle)';
  return path.basename(url);
}

/** Milliseconds not idle by package and by function, of the samples within the profile's last `lastMicros`. */
export function selfTime(profile: CpuProfile, lastMicros = Infinity) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  // timeDeltas[i] (µs) is the time from sample i-1 to sample i: a sample stands for the time until the next one.
  const selfMicros = new Map<number, number>();
  let at = profile.startTime;
  profile.samples.forEach((id, index) => {
    at += profile.timeDeltas[index];
    if (profile.endTime - at > lastMicros) return;
    selfMicros.set(id, (selfMicros.get(id) ?? 0) + (profile.timeDeltas[index + 1] ?? 0));
  });
  const byPackage = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let total = 0;
  for (const [id, micros] of selfMicros) {
    const node = byId.get(id);
    if (!node || node.callFrame.functionName === '(idle)') continue;
    const { callFrame } = node;
    const ms = micros / 1000;
    total += ms;
    const pkg = packageOf(callFrame.url);
    byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + ms);
    const name = `${callFrame.functionName || '(anonymous)'} ${pkg}:${callFrame.lineNumber + 1}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + ms);
  }
  return { total, byPackage, byFunction };
}

/** One line per entry, largest first: its share of `total`, its milliseconds and its name. */
export function shareRows(msByName: Map<string, number>, total: number, top = Infinity): string[] {
  return [...msByName.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([name, ms]) => `  ${((ms / total) * 100).toFixed(1).padStart(5)} %  ${ms.toFixed(0).padStart(7)} ms  ${name}`);
}

export async function cpuProfileSummary(dir?: string, topArg?: string, lastArg?: string): Promise<number> {
  if (!dir) {
    console.error('usage: node scripts/bench.mjs cpu-profile-summary <dir> [top] [last-seconds]');
    return 2;
  }
  const top = Number(topArg ?? 25);
  const lastMicros = lastArg === undefined ? Infinity : Number(lastArg) * 1e6;
  for (const file of fs.readdirSync(dir).filter((name) => name.endsWith('.cpuprofile'))) {
    const profile = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as CpuProfile;
    const { total, byPackage, byFunction } = selfTime(profile, lastMicros);
    console.log(`\n${file}: ${total.toFixed(0)} ms not idle (on a core, or preempted mid-task)`);
    console.log(' by package:');
    console.log(shareRows(byPackage, total, top).join('\n'));
    console.log(' by function:');
    console.log(shareRows(byFunction, total, top).join('\n'));
  }
  return 0;
}
