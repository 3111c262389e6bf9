// `npm run bench`: the read path, the saga's capacity and rates, `Prefer: wait`, memory, idle CPU,
// tracing's and the bus security's cost and the scaled stack, beside floors doing the same jobs
// with node:http, pg and kafkajs, written to docs/BENCHMARKS.md (raw figures in docs/bench/).
// BENCH_ONLY=<sections> runs some of them; `node scripts/bench.mjs gateway-cpu <main.js> …` and
// `node scripts/bench.mjs cpu-profile-summary <dir>` are its helper commands. The knobs and what
// each section measures: tools/bench/README.md. On a Node older than 24 it runs itself again on
// Node 24, the images' runtime (scripts/node24.sh).
import { onImagesNode, runTool } from '../tools/load-tool.mjs';

await onImagesNode('bench');
await runTool('bench', 'bench', ...process.argv.slice(2));
