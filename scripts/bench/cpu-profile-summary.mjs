// Where a process spent its CPU: `node scripts/bench/cpu-profile-summary.mjs <dir> [top] [last-seconds]`
// reads the V8 profiles that `--cpu-prof` wrote there (BENCH_CPU_PROF) and prints, per profile,
// the self time by package and the functions with the most self time; with `last-seconds`, only
// the samples of a profile's last seconds (e.g. a `BENCH_ONLY=idle` run's idle minute).
import fs from 'node:fs';
import path from 'node:path';

const [dir, topArg, lastArg] = process.argv.slice(2);
const top = Number(topArg ?? 25);
const lastMicros = lastArg === undefined ? Infinity : Number(lastArg) * 1e6;
if (!dir) {
  console.error('usage: node scripts/bench/cpu-profile-summary.mjs <dir> [top] [last-seconds]');
  process.exit(2);
}

/** node_modules/<package> (or the bundle, node's internals, the engine) a frame belongs to. */
function packageOf(url) {
  if (!url) return '(engine)';
  if (url.startsWith('node:')) return 'node:internal';
  const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (match) return match[1];
  if (url.includes('/dist/apps/')) return '(app bundle)';
  return path.basename(url);
}

for (const file of fs.readdirSync(dir).filter((name) => name.endsWith('.cpuprofile'))) {
  const profile = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  // timeDeltas[i] (µs) is the time from sample i-1 to sample i: a sample stands for the time until the next one.
  const selfMicros = new Map();
  let at = profile.startTime;
  profile.samples.forEach((id, index) => {
    at += profile.timeDeltas[index];
    if (profile.endTime - at > lastMicros) return;
    selfMicros.set(id, (selfMicros.get(id) ?? 0) + (profile.timeDeltas[index + 1] ?? 0));
  });
  const byPackage = new Map();
  const byFunction = new Map();
  let total = 0;
  for (const [id, micros] of selfMicros) {
    const { callFrame } = byId.get(id);
    if (callFrame.functionName === '(idle)') continue;
    const ms = micros / 1000;
    total += ms;
    const pkg = packageOf(callFrame.url);
    byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + ms);
    const name = `${callFrame.functionName || '(anonymous)'} ${pkg}:${callFrame.lineNumber + 1}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + ms);
  }
  const rows = (map) =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, ms]) => `  ${((ms / total) * 100).toFixed(1).padStart(5)} %  ${ms.toFixed(0).padStart(7)} ms  ${name}`);
  console.log(`\n${file}: ${total.toFixed(0)} ms busy`);
  console.log(' by package:');
  console.log(rows(byPackage).join('\n'));
  console.log(' by function:');
  console.log(rows(byFunction).join('\n'));
}
