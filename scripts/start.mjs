// `npm start`: the whole stack on this machine — Kafka, the databases and their migrations, the
// three services and the gateway. Ctrl-C stops what it started. The work is tools/stack's
// (src/commands/start.ts), built and loaded here.
import { runTool } from '../tools/load-tool.mjs';

await runTool('stack', 'start');
