// The bundle the scripts under scripts/ load (tools/load-tool.mjs): each export is one command,
// returning the process's exit code, or never returning while what it started runs.
export { start } from './commands/start';
export { test } from './commands/test';
export { cluster } from './commands/cluster';
export { brokerPrincipals } from './commands/kafka-principals';
