import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { attributionOf, bundleSourceFiles, cpuByPackage, jsFrameLocation, parsePerfScript } from './perf-by-package';

// Three samples as `perf script -F comm,pid,tid,period,ip,sym` prints them.
const SCRIPT = [
  'MainThread  7031/7031     1001001 ',
  '\t          6e81a9 node::StreamBase::WriteBuffer',
  '\t         163608d Builtins_CallApiCallbackGeneric',
  "\t    7fef8faa23a0 JS:*'writeOrBuffer node:internal/streams/writable:550:23",
  "\t    7fef8fa15c2b JS:+sendRequest /w/node_modules/kafkajs/src/network/connection.js:408:26",
  '',
  'MainThread  7031/7031     1001001 ',
  "\t    7fe98c47795d JS:*'validate13 :3:184",
  '\t         16774fb Builtins_AsyncFunctionAwaitResolveClosure',
  "\t    7fef8fa4736f JS:*'create /w/dist/apps/orders/main.js:2220:15",
  '',
  'libuv-worker  7052/7060     2002002 ',
  '\t          a23036 uv__fs_work',
  '',
].join('\n');

describe('CPU by package from perf', () => {
  it('reads each sample: thread name (spaces and all), process, period and frames innermost first', () => {
    const samples = parsePerfScript(SCRIPT);
    expect(samples.map(({ comm, pid, periodNs, frames }) => [comm, pid, periodNs, frames.length])).toEqual([
      ['MainThread', 7031, 1001001, 4],
      ['MainThread', 7031, 1001001, 3],
      ['libuv-worker', 7052, 2002002, 1],
    ]);
    expect(samples[0].frames[0]).toBe('node::StreamBase::WriteBuffer');
  });

  it("names where a JIT frame's function starts, and nothing for native frames or code without a file", () => {
    expect(jsFrameLocation("JS:+sendRequest /w/node_modules/kafkajs/src/network/connection.js:408:26")).toEqual({
      url: '/w/node_modules/kafkajs/src/network/connection.js',
      line: 408,
      column: 26,
    });
    expect(jsFrameLocation("JS:*'writeOrBuffer node:internal/streams/writable:550:23")?.url).toBe('node:internal/streams/writable');
    expect(jsFrameLocation('JS:* /w/dist/apps/orders/main.js:5590:56')?.url).toBe('/w/dist/apps/orders/main.js');
    expect(jsFrameLocation("JS:*'validate13 :3:184")).toBeUndefined();
    expect(jsFrameLocation('Builtins_LoadIC_Megamorphic')).toBeUndefined();
  });

  it('counts native work for the innermost JavaScript with a file, and the rest for its thread', () => {
    const [write, validation, fileSystem] = parsePerfScript(SCRIPT);
    expect(attributionOf(write)).toBe('node:internal');
    expect(attributionOf(validation)).toBe('(app bundle)');
    const sourceFileOf = ({ url, line }: { url: string; line: number }) =>
      url.endsWith('/dist/apps/orders/main.js') && line === 2220 ? 'libs/contracts/src/events/define-event.ts' : undefined;
    expect(attributionOf(validation, sourceFileOf)).toBe('libs/contracts/src/events/define-event.ts');
    expect(attributionOf(write, sourceFileOf)).toBe('node:internal');
    expect(attributionOf(fileSystem)).toBe('(thread libuv-worker)');
    expect(attributionOf({ comm: 'V8Worker', pid: 1, periodNs: 1, frames: ['v8::internal::Scavenger::Process'] })).toBe(
      '(V8 workers: garbage collection, compilers)',
    );
  });

  it('sums the periods as milliseconds per process, only of the processes asked for', () => {
    const samples = parsePerfScript(SCRIPT);
    expect([...cpuByPackage(samples, [7031])]).toEqual([
      [7031, new Map([['node:internal', 1.001001], ['(app bundle)', 1.001001]])],
    ]);
    expect([...cpuByPackage(samples).keys()]).toEqual([7031, 7052]);
  });

  it("names the source file of a bundle's function from the map beside the bundle", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perf-by-package-'));
    fs.mkdirSync(path.join(dir, 'dist/apps/orders'), { recursive: true });
    // The bundle's line 1 comes from define-event.ts (a library), its line 2 from the app's placements.ts.
    const sources = ['webpack:///../../libs/contracts/src/events/define-event.ts', 'webpack:///./src/orders/placements.ts'];
    const map = { version: 3, sources, names: [], mappings: 'AAAA;ACAA' };
    fs.writeFileSync(path.join(dir, 'dist/apps/orders/main.js.map'), JSON.stringify(map));
    const sourceFileOf = bundleSourceFiles();
    expect(sourceFileOf({ url: path.join(dir, 'dist/apps/orders/main.js'), line: 1, column: 1 })).toBe(
      'libs/contracts/src/events/define-event.ts',
    );
    expect(sourceFileOf({ url: path.join(dir, 'dist/apps/orders/main.js'), line: 2, column: 1 })).toBe(
      'apps/orders/src/orders/placements.ts',
    );
    expect(sourceFileOf({ url: path.join(dir, 'dist/apps/gateway/main.js'), line: 1, column: 1 })).toBeUndefined();
    // A package's own build, map and all, is the package's.
    expect(sourceFileOf({ url: '/w/node_modules/pg-protocol/dist/parser.js', line: 1, column: 1 })).toBeUndefined();
    fs.rmSync(dir, { recursive: true });
  });
});
