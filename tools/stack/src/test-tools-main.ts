// `node dist/tools/stack/test-tools.js install <folder>`: fetches helm and kubectl into <folder>;
// `chartTools` runs it under flock(1), so two test processes never fetch at once.
import { installChartTools } from './test-tools';

const [command, home] = process.argv.slice(2);
if (command === 'install' && home) installChartTools(home);
else {
  process.stderr.write('usage: node dist/tools/stack/test-tools.js install <folder>\n');
  process.exitCode = 2;
}
