// Builds the publishable package into dist/libs/client: CommonJS (cjs/) and ES modules (esm/),
// each with its declarations, a package.json marking the module kind of its folder (Node reads
// the nearest one), and the manifest and README beside them. Two tsc runs: no bundler is needed
// for four source files.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const out = path.join(here, '../../dist/libs/client');
const tsc = path.join(here, '../../node_modules/typescript/bin/tsc');

rmSync(out, { recursive: true, force: true });
for (const [config, folder, type] of [
  ['tsconfig.lib.json', 'cjs', 'commonjs'],
  ['tsconfig.esm.json', 'esm', 'module'],
]) {
  execFileSync(process.execPath, [tsc, '-p', path.join(here, config)], { stdio: 'inherit' });
  mkdirSync(path.join(out, folder), { recursive: true });
  writeFileSync(path.join(out, folder, 'package.json'), `${JSON.stringify({ type }, null, 2)}\n`);
}
cpSync(path.join(here, 'package.json'), path.join(out, 'package.json'));
cpSync(path.join(here, 'README.md'), path.join(out, 'README.md'));
