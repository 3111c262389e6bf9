// Where a process's CPU went, by package: `node scripts/bench.mjs perf-by-package <perf-script.txt>
// [pid[=name] …]` reads the text of `perf script -F comm,pid,tid,period,ip,sym` over a `perf record
// -e cpu-clock -a -g` of processes started with `--perf-basic-prof-only-functions` (NODE_OPTIONS
// passes it to every process the bench starts), and prints, per process, its CPU by the package of
// the innermost JavaScript frame of each sample: node_modules/<package>, Node's internals, or, in an
// app's bundle, the source file its map names (`libs/messaging/src/outbox.relay.ts`). So V8's
// builtins and runtime, and system calls, count for the JavaScript that called them. Samples with
// no JavaScript frame count by thread: the main thread's native work, and V8's workers (garbage
// collection, the compilers).
//
// Unlike a V8 profile (cpu-profile-summary), a cpu-clock sample is taken only while the thread is
// on a core, so the figures are CPU and not time spent preempted.
import * as fs from 'node:fs';
import { SourceMap } from 'node:module';
import * as path from 'node:path';
import { packageOf, shareRows } from './cpu-profile-summary';

/** A sample's process, thread name, CPU time (the period, ns) and frames, innermost first. */
export interface PerfSample {
  pid: number;
  comm: string;
  periodNs: number;
  frames: string[];
}

/** The samples of `perf script -F comm,pid,tid,period,ip,sym` text. */
export function parsePerfScript(text: string): PerfSample[] {
  const samples: PerfSample[] = [];
  let current: PerfSample | undefined;
  for (const line of text.split('\n')) {
    // A header: the thread's name (it may hold spaces), pid/tid, the period.
    const header = /^(\S.*?)\s+(\d+)\/\d+\s+(\d+)\s*$/.exec(line);
    if (header) {
      current = { comm: header[1], pid: Number(header[2]), periodNs: Number(header[3]), frames: [] };
      samples.push(current);
      continue;
    }
    const frame = /^\s+[0-9a-f]+\s+(.*)$/.exec(line);
    if (frame && current) current.frames.push(frame[1]);
  }
  return samples;
}

/** Where a JIT frame's function starts: its file, line and column (1-based, as perf's map names them). */
export interface JsFrameLocation {
  url: string;
  line: number;
  column: number;
}

/**
 * The function a JIT frame's symbol names (`JS:*'name /path/file.js:12:5`, `JS:+ node:internal/x:3:1`),
 * or undefined for any other frame and for code without a file (ajv's compiled validators).
 */
export function jsFrameLocation(symbol: string): JsFrameLocation | undefined {
  if (!symbol.startsWith('JS:')) return undefined;
  const match = /\s((?:node:|file:|\/)\S*?):(\d+):(\d+)$/.exec(symbol);
  return match ? { url: match[1], line: Number(match[2]), column: Number(match[3]) } : undefined;
}

/** The source file a bundle's function comes from, when the bundle has a map; else undefined. */
export type SourceFileOf = (location: JsFrameLocation) => string | undefined;

/**
 * What a sample's CPU counts for: the package (or, through `sourceFileOf`, the source file) of its
 * innermost JavaScript frame with a file, else its thread.
 */
export function attributionOf(sample: PerfSample, sourceFileOf: SourceFileOf = () => undefined): string {
  for (const frame of sample.frames) {
    const location = jsFrameLocation(frame);
    if (location !== undefined) return sourceFileOf(location) ?? packageOf(location.url);
  }
  if (sample.comm === 'MainThread' || sample.comm === 'node') return '(main thread, no JavaScript frame)';
  if (sample.comm === 'V8Worker') return '(V8 workers: garbage collection, compilers)';
  return `(thread ${sample.comm})`;
}

/**
 * The source files of the workspace's bundles (`dist/apps/<app>/main.js`, `dist/tools/…`) that
 * have a map beside them, as paths from the workspace's root (`libs/messaging/src/outbox.relay.ts`).
 */
export function bundleSourceFiles(): SourceFileOf {
  const maps = new Map<string, SourceMap | undefined>();
  return ({ url, line, column }) => {
    // webpack names sources from the project's folder: dist/apps/orders/main.js is built in apps/orders.
    const project = /\/dist\/((?:apps|tools)\/[^/]+(?:\/[^/]+)*)\/[^/]+\.js$/.exec(url)?.[1];
    if (project === undefined || url.includes('/node_modules/')) return undefined;
    if (!maps.has(url)) {
      const mapFile = `${url}.map`;
      maps.set(url, fs.existsSync(mapFile) ? new SourceMap(JSON.parse(fs.readFileSync(mapFile, 'utf8'))) : undefined);
    }
    const entry = maps.get(url)?.findEntry(line - 1, column - 1);
    if (!entry || !('originalSource' in entry)) return undefined;
    return path.posix.normalize(path.posix.join(project, entry.originalSource.replace(/^webpack:\/\/\//, '')));
  };
}

/** Milliseconds of CPU per attribution, per process of `pids` (every process when empty). */
export function cpuByPackage(
  samples: PerfSample[],
  pids: number[] = [],
  sourceFileOf?: SourceFileOf,
): Map<number, Map<string, number>> {
  const byProcess = new Map<number, Map<string, number>>();
  for (const sample of samples) {
    if (pids.length > 0 && !pids.includes(sample.pid)) continue;
    let byPackage = byProcess.get(sample.pid);
    if (!byPackage) byProcess.set(sample.pid, (byPackage = new Map()));
    const attribution = attributionOf(sample, sourceFileOf);
    byPackage.set(attribution, (byPackage.get(attribution) ?? 0) + sample.periodNs / 1e6);
  }
  return byProcess;
}

export async function perfByPackage(file?: string, ...processes: string[]): Promise<number> {
  if (!file) {
    console.error('usage: node scripts/bench.mjs perf-by-package <perf-script.txt> [pid[=name] …]');
    return 2;
  }
  const names = new Map(processes.map((arg) => arg.split('=')).map(([pid, name]) => [Number(pid), name ?? pid]));
  const byProcess = cpuByPackage(parsePerfScript(fs.readFileSync(file, 'utf8')), [...names.keys()], bundleSourceFiles());
  for (const [pid, byPackage] of byProcess) {
    const total = [...byPackage.values()].reduce((sum, ms) => sum + ms, 0);
    console.log(`\n${names.get(pid) ?? pid} (pid ${pid}): ${total.toFixed(0)} ms of CPU`);
    console.log(shareRows(byPackage, total).join('\n'));
  }
  return 0;
}
