// The one way every tool (tools/bench, tools/chaos, tools/stack) is bundled: as the apps are, a
// Node bundle with the workspace's libraries inside and node_modules left external, written to
// dist/tools/<tool>. Each bundle is a CommonJS module whose exports the entry points under
// scripts/ call (tools/load-tool.mjs). Types are checked by each tool's `typecheck` target (part
// of its lint), so the bundle only transpiles: `npm start` and `npm test` build it on every run.
const { NxAppWebpackPlugin } = require('@nx/webpack/app-plugin');
const { basename, join } = require('path');

const WORKSPACE_ROOT = join(__dirname, '../..');

/**
 * `toolDir` is the tool's folder (its webpack.config.js passes `__dirname`); `entries` are more
 * bundles beside main.js, each a program of its own that a tool forks (`{ entryName, entryPath }`).
 */
function toolWebpackConfig(toolDir, entries = []) {
  return {
    output: { path: join(WORKSPACE_ROOT, 'dist/tools', basename(toolDir)), clean: true, library: { type: 'commonjs2' } },
    plugins: [
      new NxAppWebpackPlugin({
        target: 'node',
        compiler: 'tsc',
        main: './src/main.ts',
        additionalEntryPoints: entries,
        tsConfig: './tsconfig.lib.json',
        optimization: false,
        outputHashing: 'none',
        sourceMap: true,
        skipTypeChecking: true,
      }),
    ],
  };
}

module.exports = { toolWebpackConfig };
