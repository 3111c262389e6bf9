// The bench's commands, as scripts/bench.mjs and scripts/user-load.mjs call them (tools/load-tool.mjs).
import { benchmark } from './bench';
import { cpuProfileSummary } from './cpu-profile-summary';
import { gatewayCpu } from './gateway-cpu';
import { perfByPackage } from './perf-by-package';
import { reportFromRaw } from './report';
import { roundTripCost } from './round-trip-cost';
import { transactionCost } from './transaction-cost';

export { userLoad } from './user-load';
export { benchmark, cpuProfileSummary, gatewayCpu };

const COMMANDS: Record<string, (...args: string[]) => Promise<number>> = {
  'gateway-cpu': gatewayCpu,
  'cpu-profile-summary': cpuProfileSummary,
  'perf-by-package': perfByPackage,
  report: reportFromRaw,
  'round-trip-cost': roundTripCost,
  'transaction-cost': transactionCost,
};

/**
 * `node scripts/bench.mjs` (`npm run bench`): the whole benchmark; `node scripts/bench.mjs
 * gateway-cpu …`, `cpu-profile-summary …`, `perf-by-package …`, `report …`, `round-trip-cost …`
 * or `transaction-cost …`: one of its helper commands.
 */
export async function bench(command?: string, ...args: string[]): Promise<number> {
  if (command === undefined) return benchmark();
  const run = COMMANDS[command];
  if (!run) {
    console.error(`usage: node scripts/bench.mjs [${Object.keys(COMMANDS).join(' | ')} …]`);
    return 2;
  }
  return run(...args);
}
