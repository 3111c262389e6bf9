// The figures go between the markers of docs/BENCHMARKS.md; the reading of them around the
// markers is written by hand and survives the next run. Raw figures go to docs/bench/.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ROOT } from '@petstore/stack';
import { log } from './figures';
import { between } from './markdown';
import { renderMain, runLine } from './render-report';
import { lullBlock, securityBlock, soakBlock, transportsBlock } from './render-runs';
import type { BenchResults } from './results';

/**
 * A soak (BENCH_ONLY=soak), the lulls (BENCH_ONLY=lull), a comparison of the RPC transports
 * (BENCH_ONLY=transports) and one of the bus's security (BENCH_ONLY=security) are runs of their own: their figures and raw file stay
 * beside the main ones, which they leave alone.
 */
function runsOfTheirOwn(results: BenchResults) {
  const main = Boolean(results.capacity || results.reads);
  return { soak: Boolean(results.soak) && !main, lull: Boolean(results.lull) && !main, transports: Boolean(results.transports) && !main, security: Boolean(results.security) && !main };
}

/** docs/bench/raw-<day>[-soak|-lull|-transports|-security].json */
export function rawFileName(results: BenchResults): string {
  const only = runsOfTheirOwn(results);
  return `raw-${results.startedAt.slice(0, 10)}${only.soak ? '-soak' : ''}${only.lull ? '-lull' : ''}${only.transports ? '-transports' : ''}${only.security ? '-security' : ''}.json`;
}

/** The report's blocks by marker, each present only when the run measured it. */
export function reportBlocks(results: BenchResults, rawLink: string): Record<string, string[]> {
  const only = runsOfTheirOwn(results);
  const line = runLine(results, rawLink);
  const blocks: Record<string, string[]> = {};
  if (!only.soak && !only.lull && !only.transports && !only.security) blocks.bench = renderMain(results, rawLink);
  for (const [marker, lines] of [
    ['bench-soak', soakBlock(results, line)],
    ['bench-lull', lullBlock(results, line)],
    ['bench-transports', transportsBlock(results, line)],
    ['bench-security', securityBlock(results, line)],
  ] as const) {
    if (lines.length > 0) blocks[marker] = lines;
  }
  return blocks;
}

/** `report` (docs/BENCHMARKS.md's text) with each block between its markers. */
export function updateReport(report: string, blocks: Record<string, string[]>): string {
  return Object.entries(blocks).reduce((text, [marker, lines]) => between(text, marker, lines), report);
}

export function writeReport(results: BenchResults): void {
  const rawFile = path.join(ROOT, 'docs', 'bench', rawFileName(results));
  fs.mkdirSync(path.dirname(rawFile), { recursive: true });
  fs.writeFileSync(rawFile, `${JSON.stringify(results, null, 2)}\n`);
  renderIntoReport(results, rawFile);
  log(`wrote docs/BENCHMARKS.md and ${path.relative(ROOT, rawFile)}`);
}

/**
 * `node scripts/bench.mjs report docs/bench/raw-<day>.json`: the blocks of that run rendered
 * again into docs/BENCHMARKS.md, as after a change to how the report shows the figures.
 */
export async function reportFromRaw(rawFile?: string): Promise<number> {
  if (!rawFile) {
    console.error('usage: node scripts/bench.mjs report <docs/bench/raw-*.json>');
    return 2;
  }
  const results = JSON.parse(fs.readFileSync(rawFile, 'utf8')) as BenchResults;
  renderIntoReport(results, path.resolve(rawFile));
  log(`rendered ${rawFile} into docs/BENCHMARKS.md`);
  return 0;
}

function renderIntoReport(results: BenchResults, rawFile: string): void {
  const docs = path.join(ROOT, 'docs');
  const reportFile = path.join(docs, 'BENCHMARKS.md');
  const report = fs.existsSync(reportFile) ? fs.readFileSync(reportFile, 'utf8') : '# Benchmarks\n';
  fs.writeFileSync(reportFile, updateReport(report, reportBlocks(results, path.relative(docs, rawFile))));
}
