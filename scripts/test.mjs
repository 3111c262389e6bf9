// `npm test`: every test of every project — lint and type checks, unit and integration tests
// against the real PostgreSQL and Kafka, end-to-end through the gateway, then the short chaos
// suite. The work is tools/stack's (src/commands/test.ts), built and loaded here.
import { runTool } from '../tools/load-tool.mjs';

await runTool('stack', 'test');
