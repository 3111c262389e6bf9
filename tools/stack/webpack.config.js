const { toolWebpackConfig } = require('../webpack/tool-webpack-config');

// Beside main.js (the commands), the programs the stack tools run on their own: the suites' NATS
// and Redis servers (Jest's global setup), and the fetch of helm and kubectl under a lock.
module.exports = toolWebpackConfig(__dirname, [
  { entryName: 'test-server', entryPath: 'tools/stack/src/test-server.ts' },
  { entryName: 'test-tools', entryPath: 'tools/stack/src/test-tools-main.ts' },
]);
