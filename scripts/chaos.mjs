// `npm run chaos`: faults under continuous order load, each on stacks of the run's own, with the
// invariants checked after every scenario; writes docs/RELIABILITY.md. `--short` (a stage of
// `npm test`) runs the gentler short scenarios without writing it; `--cluster` and `--single` run
// one stack's scenarios only. What it does, its invariants and knobs: tools/chaos/README.md.
//
// Run it alone on the machine, through `node` (npm does not hand a lock on to the script):
// `flock /tmp/petstore-stack.lock node scripts/chaos.mjs`.
import { runTool } from '../tools/load-tool.mjs';

await runTool('chaos', 'chaos', process.argv.slice(2));
