// Orders at a steady rate against a running stack (`npm start`), as a user of the API would send
// them: `node scripts/user-load.mjs [rate=250] [seconds=20]` prints the answers' latency, the
// machine's idle CPU and placed → decided. Part of tools/bench (see its README.md).
import { runTool } from '../tools/load-tool.mjs';

await runTool('bench', 'userLoad', ...process.argv.slice(2));
