const { toolWebpackConfig } = require('../webpack/tool-webpack-config');

// The floors run as programs of their own beside main.js, forked from dist/tools/bench/.
module.exports = toolWebpackConfig(__dirname, [
  { entryName: 'floor-server', entryPath: './src/floor-server.ts' },
  { entryName: 'saga-floor', entryPath: './src/saga-floor.ts' },
]);
