// `npm run cluster`: the stack in scaled form on this machine — three Kafka brokers, two replicas
// of every service, two gateways behind HAProxy on :3000; Ctrl-C stops everything but the brokers.
// `npm run cluster -- restart <replica>` (e.g. orders-1): a graceful restart of one replica of the
// running cluster. The work is tools/stack's (src/commands/cluster.ts), built and loaded here.
import { runTool } from '../tools/load-tool.mjs';

await runTool('stack', 'cluster', ...process.argv.slice(2));
